//go:build linux

package landlock

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reinsdev/reins/sandbox"
)

func within(p, dir string) bool { return p == dir || dir == "/" || strings.HasPrefix(p, dir+"/") }

// TestPlanCarvesAroundExcludedPaths checks the plan's invariants on a real tree: no rule that
// grants reading covers a read-denied path; the write root is writable as a whole, protected
// names included (the check after the command restores those), except around a read-denied
// path, whose folders keep every right but reading and executing.
func TestPlanCarvesAroundExcludedPaths(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	proj := filepath.Join(root, "proj")
	for _, d := range []string{".git/hooks", ".git/objects/ab", "src/deep/er", "secrets", "docs"} {
		os.MkdirAll(filepath.Join(proj, d), 0o755)
	}
	for _, f := range []string{".git/config", ".git/HEAD", "src/a.go", "secrets/k", "README", ".git/objects/ab/cd"} {
		os.WriteFile(filepath.Join(proj, f), []byte("x"), 0o644)
	}
	os.Symlink("/etc", filepath.Join(proj, "etc-link"))
	spec := &sandbox.Spec{
		WriteRoots:    []string{proj},
		WriteDeny:     []string{filepath.Join(proj, ".git/config"), filepath.Join(proj, ".git/hooks")},
		MustNotCreate: []string{filepath.Join(proj, ".mcp.json")},
		ReadDeny:      []string{filepath.Join(proj, "secrets")},
	}
	grants, err := Plan(spec)
	if err != nil {
		t.Fatal(err)
	}
	access := map[string]string{}
	for _, g := range grants {
		if g.Access == AccessRO || g.Access == AccessRW {
			for _, ex := range spec.ReadDeny {
				if within(ex, g.Path) {
					t.Errorf("%s grant %s covers read-denied %s", g.Access, g.Path, ex)
				}
			}
		}
		if strings.HasPrefix(g.Path, filepath.Join(proj, "etc-link")) {
			t.Errorf("a rule was planned on a symlink: %s", g.Path)
		}
		if within(g.Path, proj) && g.Access != AccessListDir {
			access[g.Path] = g.Access
		}
	}
	for _, p := range []string{"src", "docs", "README", ".git"} {
		if access[filepath.Join(proj, p)] != AccessRW {
			t.Errorf("%s is %q, want %s", p, access[filepath.Join(proj, p)], AccessRW)
		}
	}
	if access[proj] != AccessRWNoRead {
		t.Errorf("the folder holding a read-denied path is %q, want %s", access[proj], AccessRWNoRead)
	}
	if a, ok := access[filepath.Join(proj, "secrets")]; ok {
		t.Errorf("the read-denied folder got %s", a)
	}
	spec.ReadDeny = nil
	grants, _ = Plan(spec)
	if !slices.ContainsFunc(grants, func(g Grant) bool { return g.Path == proj && g.Access == AccessRW }) {
		t.Error("with nothing read-denied inside, the write root is not writable as a whole")
	}
}

// BenchmarkPlan plans the rules of a command in a project with a read-denied file at its top
// and a credential folder in a home folder.
func BenchmarkPlan(b *testing.B) {
	root, _ := filepath.EvalSymlinks(b.TempDir())
	proj, home := filepath.Join(root, "proj"), filepath.Join(root, "home")
	for _, f := range []string{"proj/.env", "proj/README", "proj/src/a.go", "home/.ssh/id_ed25519", "home/.bashrc", "home/notes"} {
		os.MkdirAll(filepath.Dir(filepath.Join(root, f)), 0o755)
		os.WriteFile(filepath.Join(root, f), []byte("x"), 0o644)
	}
	spec := &sandbox.Spec{WriteRoots: []string{proj}, ReadDeny: []string{filepath.Join(proj, ".env"), filepath.Join(home, ".ssh")}}
	for b.Loop() {
		if _, err := Plan(spec); err != nil {
			b.Fatal(err)
		}
	}
}
