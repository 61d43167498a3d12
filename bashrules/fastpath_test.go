package bashrules

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"github.com/reinsdev/reins/permission"
)

// TestPropertySuspiciousProbesDecideAsChecked: a probe of a suspicious path (go vet ./...,
// mytool a/.../b, make x.) is skipped without looking at the file or the rules; the decision
// is the one a traced run gives, where every probe runs both checks. Files named "..." and
// "x." exist, and rules name them, so that a skipped check had something to find.
func TestPropertySuspiciousProbesDecideAsChecked(tt *testing.T) {
	f := newFixture(tt)
	for _, p := range []string{"...", "x.", "sub/.../a.txt", ".git/...", "src/.../x"} {
		full := filepath.Join(f.proj, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			tt.Fatal(err)
		}
		if err := os.WriteFile(full, nil, 0o644); err != nil {
			tt.Fatal(err)
		}
	}
	words := []string{"./...", "...", "./src/...", "sub/.../a.txt", "x.", "x", ".git/...", ".git/config", ".env", "src",
		"test", "./.env.", "~/...", "../...", "a/b/...", "./.claude/settings.json", "src/.../x", "....", "//srv/share/x",
		"nul", "a~1.txt", "src/", "README.md"}
	verbs := []string{"go vet %s", "go test %s", "mytool %s", "make %s", "mytool --out=%s", "mytool @%s", "npm run %s"}
	ruleSets := [][]string{
		{"allow:Bash(*)", "deny:Read(./...)", "ask:Read(**/x.)", denyEnv},
		{"allow:Bash(go vet *)", "allow:Bash(make:*)", "deny:Read(**/.../**)", "ask:Read(./...)"},
		{"allow:Bash(*)", "deny:Read(//**)"},
		{"allow:Bash(*)"},
	}
	modes := []permission.Mode{permission.ModeDefault, permission.ModeAcceptEdits}
	suspicious, plain := 0, 0
	rapid.Check(tt, func(t *rapid.T) {
		pc := f.context(tt, rapid.SampledFrom(modes).Draw(t, "mode"), rapid.SampledFrom(ruleSets).Draw(t, "rules")...)
		n := rapid.IntRange(1, 4).Draw(t, "n")
		cmd := ""
		for i := range n {
			if i > 0 {
				cmd += " && "
			}
			w := rapid.SampledFrom(words).Draw(t, "word")
			if abs, err := pc.ResolvePath(w); err == nil && permission.SuspiciousPath(abs) != "" {
				suspicious++
			} else {
				plain++
			}
			cmd += fmt.Sprintf(rapid.SampledFrom(verbs).Draw(t, "verb"), w)
		}
		d := Check(context.Background(), pc, cmd)
		traced, _ := check(tt, pc, cmd)
		if !reflect.DeepEqual(traced, d) {
			t.Fatalf("%q: with a trace (every probe checked) %s\nwithout %s", cmd, explainNoTrace(traced), explainNoTrace(d))
		}
	})
	if suspicious == 0 || plain == 0 {
		tt.Errorf("suspicious probes %d, others %d: the property compared only one kind", suspicious, plain)
	}
}
