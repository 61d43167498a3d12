//go:build linux

package landlock

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsdev/reins/sandbox"
)

func within(p, dir string) bool { return p == dir || dir == "/" || strings.HasPrefix(p, dir+"/") }

// TestPlanCarvesAroundExcludedPaths checks the plan's invariants on a real tree: no rule that
// grants writing covers a protected path, no rule that grants reading covers a read-denied
// one, and every other entry of the write root is writable.
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
	writable := map[string]bool{}
	for _, g := range grants {
		switch g.Access {
		case AccessRW:
			writable[g.Path] = true
			for _, ex := range append(append(spec.WriteDeny, spec.MustNotCreate...), spec.ReadDeny...) {
				if within(ex, g.Path) {
					t.Errorf("write grant %s covers excluded %s", g.Path, ex)
				}
			}
		case AccessRO:
			for _, ex := range spec.ReadDeny {
				if within(ex, g.Path) {
					t.Errorf("read grant %s covers read-denied %s", g.Path, ex)
				}
			}
		}
		if strings.HasPrefix(g.Path, filepath.Join(proj, "etc-link")) {
			t.Errorf("a rule was planned on a symlink: %s", g.Path)
		}
	}
	for _, p := range []string{"src", "docs", "README", ".git/objects", ".git/HEAD"} {
		if !writable[filepath.Join(proj, p)] {
			t.Errorf("%s is not writable; grants: %+v", p, grants)
		}
	}
	if writable[proj] || writable[filepath.Join(proj, ".git")] {
		t.Error("a folder holding protected paths got a write rule, which would cover them")
	}
}
