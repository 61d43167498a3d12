package gitcli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/reinsdev/reins/bashrules"
	"github.com/reinsdev/reins/permission"
)

func gitRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: these tests run the real git CLI")
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(root, "proj")
	for p, c := range map[string]string{"src/a.go": "a", "src/b.go": "b", "src/.env": "KEY=1", ".gitignore": ".env\nbuild/\n", "build/out.o": "o", "README.md": "r"} {
		full := filepath.Join(proj, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "src", ".gitignore", "README.md"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = proj
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	return proj
}

// TestStatusNamesIgnoredAndChanged runs the real git: an ignored .env and build folder, an
// untracked file, a tracked file changed.
func TestStatusNamesIgnoredAndChanged(t *testing.T) {
	proj := gitRepo(t)
	if err := os.WriteFile(filepath.Join(proj, "src/new.go"), []byte("n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proj, "src/a.go"), []byte("changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := Git{}.Status(context.Background(), proj, []string{filepath.Join(proj, "src"), filepath.Join(proj, "build")})
	if err != nil {
		t.Fatal(err)
	}
	if st.Root != proj {
		t.Errorf("root = %q, want %q", st.Root, proj)
	}
	if !slices.Contains(st.Ignored, filepath.Join(proj, "src/.env")) || !slices.Contains(st.Ignored, filepath.Join(proj, "build")+"/") {
		t.Errorf("ignored = %v, want src/.env and build/", st.Ignored)
	}
	if !slices.Contains(st.Untracked, filepath.Join(proj, "src/new.go")) {
		t.Errorf("untracked = %v, want src/new.go", st.Untracked)
	}
	if len(st.Changed) != 1 || st.Changed[0].Path != filepath.Join(proj, "src/a.go") || !st.Changed[0].Work {
		t.Errorf("changed = %+v, want src/a.go in the work tree", st.Changed)
	}
}

// TestStatusOutsideARepository: no repository is no error, and no root.
func TestStatusOutsideARepository(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: these tests run the real git CLI")
	}
	dir := t.TempDir()
	st, err := Git{}.Status(context.Background(), dir, []string{dir})
	if err != nil || st.Root != "" {
		t.Errorf("Status outside a repository = %+v, %v; want no root, no error", st, err)
	}
}

// TestStatusRunsNoFsmonitor: a repository's core.fsmonitor names a program git would run on
// status; the count must not run it before the person approved anything.
func TestStatusRunsNoFsmonitor(t *testing.T) {
	proj := gitRepo(t)
	mark := filepath.Join(t.TempDir(), "ran")
	cmd := exec.Command("git", "config", "core.fsmonitor", "touch "+mark+"; false")
	cmd.Dir = proj
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git config: %v: %s", err, out)
	}
	if _, err := (Git{}).Status(context.Background(), proj, []string{proj}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("git status ran the repository's core.fsmonitor program")
	}
}

// TestRmNamesTheIgnoredEnv is the case through the real git: rm -rf src names the
// ignored .env among what it would lose, and git clean -fdx counts the .env but sets the
// ignored build folder aside as rebuilt output.
func TestRmNamesTheIgnoredEnv(t *testing.T) {
	proj := gitRepo(t)
	pc, err := permission.New(permission.Config{Cwd: proj, Mode: permission.ModeBypass, BypassAvailable: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := bashrules.WithGit(context.Background(), Git{})
	d := bashrules.Check(ctx, pc, "rm -rf src").Damage
	if d == nil || d.Files != 3 || d.Ignored != 1 || filepath.Base(d.IgnoredPaths[0]) != ".env" {
		t.Fatalf("rm -rf src counted %+v, want 3 files with the ignored .env", d)
	}
	d = bashrules.Check(ctx, pc, "git clean -fdx").Damage
	if d == nil || d.Files != 1 || d.Ignored != 1 || len(d.Regenerable) != 1 || filepath.Base(d.Regenerable[0]) != "build" {
		t.Fatalf("git clean -fdx counted %+v, want src/.env, with build/ set aside", d)
	}
}
