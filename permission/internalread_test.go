package permission

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// The agent's saved tool results are readable without a prompt, but Read deny and ask rules
// still win, and nothing reaches outside the folder through it.
func TestCheckReadInternalDir(t *testing.T) {
	f := newFixture(t)
	results := filepath.Join(f.outside, "session", "tool-results")
	saved := filepath.Join(results, "toolu_1.txt")
	writeFile(t, saved)
	writeFile(t, results+"_evil/x.txt")
	later := filepath.Join(f.outside, "later", "tool-results") // made after the context
	tests := []struct {
		name  string
		rules []Rule
		path  string
		dir   string
		want  Behavior
	}{
		{"saved result", nil, saved, results, Allow},
		{"the folder itself", nil, results, results, Allow},
		{"Read deny rule wins", rules(Deny, SourceProject, "Read("+rulePath(results)+"/**)"), saved, results, Deny},
		{"Read deny of a file pattern wins", rules(Deny, SourceProject, "Read("+rulePath(f.outside)+"/**/toolu_*.txt)"), saved, results, Deny},
		{"Read ask rule wins", rules(Ask, SourceProject, "Read("+rulePath(f.outside)+"/**)"), saved, results, Ask},
		{"sibling prefix is outside", nil, results + "_evil/x.txt", results, Ask},
		{"dot-dot out", nil, filepath.Join(results, "..", "..", "o.txt"), results, Ask},
		{"relative folder is ignored", nil, saved, "tool-results", Ask},
		{"not configured", nil, saved, "", Ask},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var dirs []string
			if tt.dir != "" {
				dirs = []string{tt.dir}
			}
			pc := mustNew(t, Config{Cwd: f.proj, Home: f.home, Rules: tt.rules, InternalReadDirs: dirs})
			// The CLI learns the folder after building the context: both ways agree, and
			// survive a change of directory.
			pc2 := mustNew(t, Config{Cwd: f.proj, Home: f.home, Rules: tt.rules}).WithInternalReadDirs(dirs...).WithCwd(f.outside)
			for _, c := range []*Context{pc, pc2} {
				if d := c.CheckRead(context.Background(), tt.path); d.Behavior != tt.want {
					t.Errorf("CheckRead(%q) = %s (%s), want %s", tt.path, d.Behavior, d.Message, tt.want)
				}
			}
		})
	}

	t.Run("trace names the folder", func(t *testing.T) {
		pc := mustNew(t, Config{Cwd: f.proj, Home: f.home, InternalReadDirs: []string{results}})
		var tr Trace
		pc.CheckRead(WithTrace(context.Background(), &tr), saved)
		steps := tr.Steps()
		last := steps[len(steps)-1]
		if last.Outcome != "allow" || !strings.Contains(last.Detail, foldPath(results)) {
			t.Fatalf("last step %+v, want an allow naming %s", last, results)
		}
	})

	t.Run("folder made later", func(t *testing.T) {
		pc := mustNew(t, Config{Cwd: f.proj, Home: f.home, InternalReadDirs: []string{later}})
		p := filepath.Join(later, "toolu_2.txt")
		writeFile(t, p)
		if d := pc.CheckRead(context.Background(), p); d.Behavior != Allow {
			t.Fatalf("CheckRead = %s (%s), want allow", d.Behavior, d.Message)
		}
	})
}
