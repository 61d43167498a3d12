package permission

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// withinTree makes a project with a sibling and returns the context of a session in proj with
// proj/../extra added.
func withinTree(t testing.TB) (string, *Context) {
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	for _, d := range []string{"proj/a/b", "proj/c", "extra/x", "other/y"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	pc, err := New(Config{Cwd: filepath.Join(root, "proj"), AdditionalDirs: []WorkingDir{{Path: filepath.Join(root, "extra"), Source: SourceCLIArg}}})
	if err != nil {
		t.Fatal(err)
	}
	return root, pc
}

func TestWithin(t *testing.T) {
	root, pc := withinTree(t)
	p := func(s string) string { return filepath.Join(root, s) }
	tests := []struct {
		name        string
		dirs        []string
		wantDirs    []string
		wantRefused []string
		wantErr     bool
	}{
		{"inside", []string{p("proj/a")}, []string{p("proj/a")}, nil, false},
		{"the same", []string{p("proj")}, []string{p("proj")}, nil, false},
		{"around keeps the working dirs", []string{root}, []string{p("proj"), p("extra")}, nil, false},
		{"outside refused", []string{p("proj/c"), p("other")}, []string{p("proj/c")}, []string{p("other")}, false},
		{"relative refused", []string{"proj", p("extra/x")}, []string{p("extra/x")}, []string{"proj"}, false},
		{"nothing kept", []string{p("other"), "/" + "nonexistent-reins-dir"}, nil, []string{p("other"), "/nonexistent-reins-dir"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, refused, err := pc.Within(tt.dirs)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if !slices.Equal(refused, tt.wantRefused) {
				t.Errorf("refused = %q, want %q", refused, tt.wantRefused)
			}
			if err != nil {
				return
			}
			if got := n.WorkingDirs(); !slices.Equal(got, tt.wantDirs) {
				t.Errorf("WorkingDirs = %q, want %q", got, tt.wantDirs)
			}
			if n.Cwd() != tt.wantDirs[0] {
				t.Errorf("Cwd = %q, want %q", n.Cwd(), tt.wantDirs[0])
			}
			if n.OriginalCwd() != pc.OriginalCwd() {
				t.Errorf("OriginalCwd moved to %q: path rules would lose their anchor", n.OriginalCwd())
			}
		})
	}
}

// TestWithinNeverWidens: whatever directories a client names, every path inside the narrowed
// working directories was inside the original ones.
func TestWithinNeverWidens(t *testing.T) {
	root, pc := withinTree(t)
	places := []string{"", "proj", "proj/a", "proj/a/b", "proj/c", "extra", "extra/x", "other", "other/y", "proj/a/../../other"}
	rapid.Check(t, func(rt *rapid.T) {
		var dirs []string
		for _, i := range rapid.SliceOfN(rapid.IntRange(0, len(places)-1), 1, 4).Draw(rt, "dirs") {
			dirs = append(dirs, filepath.Join(root, places[i]))
		}
		n, _, err := pc.Within(dirs)
		if err != nil {
			return
		}
		for _, pl := range places {
			path := filepath.Join(root, pl, "f.txt")
			if n.InWorkingDirs(path) && !pc.InWorkingDirs(path) {
				rt.Fatalf("Within(%q) widened to %s", dirs, path)
			}
		}
		// A second narrowing cannot widen either.
		again, _, err := n.Within([]string{root})
		if err == nil && !slices.Equal(again.WorkingDirs(), n.WorkingDirs()) {
			rt.Fatalf("Within(root) of a narrowed context changed %q to %q", n.WorkingDirs(), again.WorkingDirs())
		}
	})
}
