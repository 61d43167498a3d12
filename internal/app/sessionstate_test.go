package app

import (
	"os"
	"path/filepath"
	"testing"
)

// TestGitBranch: the branch of a repository's HEAD, from a subfolder too and through a
// worktree's .git file; a detached HEAD is its commit's start; outside a repository, or with a
// HEAD that is not a regular file, none.
func TestGitBranch(t *testing.T) {
	root := t.TempDir()
	write := func(p, s string) {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "repo", ".git", "HEAD"), "ref: refs/heads/feature/x\n")
	os.MkdirAll(filepath.Join(root, "repo", "src", "deep"), 0o755)
	write(filepath.Join(root, "wt", ".git"), "gitdir: ../repo/.git/worktrees/wt\n")
	write(filepath.Join(root, "repo", ".git", "worktrees", "wt", "HEAD"), "0123456789abcdef0123456789abcdef01234567\n")
	os.MkdirAll(filepath.Join(root, "plain"), 0o755)
	for dir, want := range map[string]string{
		"repo/src/deep": "feature/x",
		"wt":            "0123456789ab",
		"plain":         "",
	} {
		if got := gitBranch(filepath.Join(root, dir)); got != want {
			t.Errorf("gitBranch(%s) = %q, want %q", dir, got, want)
		}
	}
}
