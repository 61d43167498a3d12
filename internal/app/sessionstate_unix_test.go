//go:build unix

package app

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestGitBranchFIFO: a FIFO where .git/HEAD should be is no branch, and the read does not
// wait for a writer. (Windows folders hold no FIFOs.)
func TestGitBranchFIFO(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, ".git", "HEAD"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := gitBranch(root); got != "" {
		t.Errorf("gitBranch = %q, want none", got)
	}
}
