package settings

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "core.hooksPath=/dev/null", "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// A linked worktree is trusted if and only if its main repository is, wherever it lies: a
// trusted folder holding a worktree of an untrusted repository does not trust it (the
// worktree's hooks and config are the untrusted repository's), and a worktree of a trusted
// repository outside it is trusted. A .git file that leads nowhere is an error, not trust.
func TestTrustFollowsTheMainRepository(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	cfg, home := filepath.Join(root, "config"), filepath.Join(root, "home")
	main, safe, elsewhere := filepath.Join(root, "evil"), filepath.Join(root, "safe"), filepath.Join(root, "elsewhere")
	for _, d := range []string{cfg, main, safe, elsewhere} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	gitIn(t, main, "init", "-q")
	gitIn(t, main, "commit", "-q", "--allow-empty", "-m", "x")
	inSafe := filepath.Join(safe, "wt")
	gitIn(t, main, "worktree", "add", "-q", inSafe)
	if err := Trust(cfg, home, safe); err != nil {
		t.Fatal(err)
	}
	if ok, err := IsTrusted(cfg, home, safe); err != nil || !ok {
		t.Fatalf("the trusted folder itself: %v %v", ok, err)
	}
	if ok, err := IsTrusted(cfg, home, filepath.Join(inSafe)); err != nil || ok {
		t.Errorf("a worktree of an untrusted repository inside a trusted folder is trusted: %v %v", ok, err)
	}
	out := filepath.Join(elsewhere, "wt2")
	gitIn(t, main, "worktree", "add", "-q", out)
	if ok, _ := IsTrusted(cfg, home, out); ok {
		t.Error("a worktree of an untrusted repository is trusted")
	}
	if err := Trust(cfg, home, main); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{out, inSafe, main} {
		if ok, err := IsTrusted(cfg, home, d); err != nil || !ok {
			t.Errorf("%s of a trusted repository: %v %v", d, ok, err)
		}
	}
	broken := filepath.Join(safe, "broken")
	if err := os.MkdirAll(broken, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(broken, ".git"), []byte("gitdir: /nowhere/at/all\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if ok, err := IsTrusted(cfg, home, broken); ok || err == nil {
		t.Errorf("a .git file that leads nowhere: %v %v", ok, err)
	}
}
