package worktree

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reinsdev/reins/worktree/gitdir"
)

// repo makes a real repository with a commit, an ignored .env and local.conf, a
// .worktreeinclude naming both, and a post-checkout hook that leaves a mark if it ever runs.
func repo(t *testing.T) (dir, mark string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	dir = filepath.Join(root, "main")
	mark = filepath.Join(root, "hook-ran")
	gitRun(t, root, "init", "-q", "-b", "main", dir)
	write(t, filepath.Join(dir, "README.md"), "hello\n")
	write(t, filepath.Join(dir, "src", "a.go"), "package a\n")
	write(t, filepath.Join(dir, ".gitignore"), ".env\nlocal.conf\nbuild/\n")
	write(t, filepath.Join(dir, IncludeFile), "# copied into new worktrees\n.env\nlocal.conf\n")
	gitRun(t, dir, "add", ".")
	gitRun(t, dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "first")
	write(t, filepath.Join(dir, ".env"), "TOKEN=secret\n")
	write(t, filepath.Join(dir, "local.conf"), "port=1\n")
	write(t, filepath.Join(dir, "build", "out.bin"), "binary\n")
	hook := filepath.Join(dir, ".git", "hooks", "post-checkout")
	write(t, hook, "#!/bin/sh\ntouch "+mark+"\n")
	if err := os.Chmod(hook, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, mark
}

func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// snapshot is every file of the working tree (not .git) with its bytes and mode.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == ".git" {
			return filepath.SkipDir
		}
		info, _ := d.Info()
		v := info.Mode().String()
		if d.Type().IsRegular() {
			b, _ := os.ReadFile(p)
			v += " " + string(b)
		}
		out[rel] = v
		return nil
	})
	return out
}

// A worktree's edits land in it alone, git lists it, no repository hook runs, and removing it
// leaves the main working tree byte for byte as it was.
func TestWorktreeLifecycle(t *testing.T) {
	dir, mark := repo(t)
	before := snapshot(t, dir)
	g := &Git{}
	ctx := context.Background()
	w, start, err := Create(ctx, g, filepath.Join(dir, "src"), "feat-1")
	if err != nil {
		t.Fatal(err)
	}
	if w.Path != filepath.Join(dir, ".claude", "worktrees", "feat-1") || w.Branch != "worktree-feat-1" || start != filepath.Join(w.Path, "src") {
		t.Fatalf("worktree %+v, start %s", w, start)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("the repository's post-checkout hook ran")
	}
	es, err := List(ctx, g, dir)
	if err != nil || !slices.ContainsFunc(es, func(e Entry) bool { return e.Path == w.Path && e.Branch == w.Branch }) {
		t.Fatalf("git worktree list %+v, %v", es, err)
	}
	write(t, filepath.Join(start, "b.go"), "package a // new\n")
	write(t, filepath.Join(w.Path, "README.md"), "changed in the worktree\n")
	if b, _ := os.ReadFile(filepath.Join(dir, "README.md")); string(b) != "hello\n" {
		t.Errorf("an edit in the worktree reached the main tree: %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "src", "b.go")); err == nil {
		t.Error("a new file in the worktree appeared in the main tree")
	}
	ch, err := Changes(ctx, g, w)
	if err != nil || len(ch) != 1 || !strings.Contains(ch[0], "2 uncommitted") {
		t.Errorf("changes %q, %v", ch, err)
	}
	if err := Remove(ctx, g, w, false); !errors.Is(err, ErrChanges) {
		t.Fatalf("removing a worktree with changes: %v", err)
	}
	if err := Remove(ctx, g, w, true); err != nil {
		t.Fatal(err)
	}
	if after := snapshot(t, dir); !mapsEqual(before, after) {
		t.Errorf("the main tree changed:\nbefore %v\nafter  %v", before, after)
	}
	if es, _ := List(ctx, g, dir); len(es) != 1 {
		t.Errorf("worktrees after the removal: %+v", es)
	}
	if out := gitRun(t, dir, "branch", "--list", w.Branch); strings.TrimSpace(out) != "" {
		t.Errorf("the branch is still there: %q", out)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// .worktreeinclude copies the ignored files it names, a secret file only with a yes, never
// a file it does not name.
func TestCopyIncluded(t *testing.T) {
	dir, _ := repo(t)
	g := &Git{}
	ctx := context.Background()
	isSecret := func(p string) bool { return filepath.Base(p) == ".env" }
	for _, yes := range []bool{false, true} {
		w, _, err := Create(ctx, g, dir, "")
		if err != nil {
			t.Fatal(err)
		}
		var confirm func([]string) bool
		if yes {
			confirm = func(s []string) bool { return slices.Equal(s, []string{".env"}) }
		}
		res, err := CopyIncluded(ctx, g, w, isSecret, confirm)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"local.conf"}
		if yes {
			want = append(want, ".env")
		}
		if !slices.Equal(res.Copied, want) {
			t.Errorf("yes %v: copied %v, want %v (%v)", yes, res.Copied, want, res.Notes)
		}
		_, err = os.Stat(filepath.Join(w.Path, ".env"))
		if yes != (err == nil) {
			t.Errorf("yes %v: .env in the worktree: %v", yes, err)
		}
		if !yes && (len(res.Held) != 1 || len(res.Notes) != 1) {
			t.Errorf("a held secret is not reported: %+v", res)
		}
		if _, err := os.Stat(filepath.Join(w.Path, "build", "out.bin")); err == nil {
			t.Error("a file .worktreeinclude does not name was copied")
		}
		if err := Remove(ctx, g, w, true); err != nil {
			t.Fatal(err)
		}
	}
}

// Inside a worktree the repository is read from its .git file: the main repository, and its
// hooks and configuration as the worktree's protected paths; a worktree cannot make another.
func TestGitdirOfAWorktree(t *testing.T) {
	dir, _ := repo(t)
	g := &Git{}
	w, start, err := Create(context.Background(), g, dir, "x")
	if err != nil {
		t.Fatal(err)
	}
	r, err := gitdir.Find(start)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Linked || r.Main != dir || r.CommonDir != filepath.Join(dir, ".git") || r.GitDir != filepath.Join(dir, ".git", "worktrees", "x") {
		t.Fatalf("repo %+v", r)
	}
	if pp := r.ProtectedPaths(); !slices.Contains(pp, filepath.Join(dir, ".git", "hooks")) || !slices.Contains(pp, filepath.Join(dir, ".git", "config")) {
		t.Errorf("protected paths %v", pp)
	}
	if _, _, err := Create(context.Background(), g, start, "y"); !errors.Is(err, ErrInWorktree) {
		t.Errorf("a worktree of a worktree: %v", err)
	}
	if m, _ := gitdir.Find(dir); m.Linked || m.Main != dir {
		t.Errorf("the main tree: %+v", m)
	}
	_ = w
}

func TestCheckName(t *testing.T) {
	for _, ok := range []string{"feat", "feat-1", "a.b_c", "X9"} {
		if err := CheckName(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "-x", ".hidden", "a/b", "a..b", "../x", "x.lock", strings.Repeat("a", 65), "a b"} {
		if err := CheckName(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// The main tree's local settings files, which git ignores, come along: their deny rules hold
// in the worktree.
func TestCopyLocalSettings(t *testing.T) {
	dir, _ := repo(t)
	write(t, filepath.Join(dir, ".claude", "settings.local.json"), `{"permissions": {"deny": ["Read(/secrets/**)"]}}`)
	gitRun(t, dir, "config", "core.excludesFile", "/dev/null")
	write(t, filepath.Join(dir, ".git", "info", "exclude"), ".claude/settings.local.json\n")
	w, _, err := Create(context.Background(), &Git{}, dir, "x")
	if err != nil {
		t.Fatal(err)
	}
	got, err := CopyLocalSettings(w)
	if err != nil || !slices.Equal(got, []string{filepath.Join(".claude", "settings.local.json")}) {
		t.Fatalf("copied %v, %v", got, err)
	}
	if b, _ := os.ReadFile(filepath.Join(w.Path, ".claude", "settings.local.json")); !strings.Contains(string(b), "secrets") {
		t.Errorf("the copy: %q", b)
	}
	if again, _ := CopyLocalSettings(w); len(again) != 0 {
		t.Errorf("copied again over the worktree's own: %v", again)
	}
}
