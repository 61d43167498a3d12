package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm/llmtest"
)

func gitE2E(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// reins -p --worktree NAME works in a new worktree of the repository: the edit lands there,
// git lists it, and headless the worktree is kept with a note saying where.
func TestWorktreeE2E(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	bin := reinsBinary(t)
	srv := llmtest.NewAnthropicServer(t, llmtest.UseTools(llmtest.Call("Write", `{"file_path":"notes.txt","content":"hi\n"}`)), llmtest.Say("done"))
	e := newE2E(t, bin).anthropic(srv)
	gitE2E(t, e.dir, "init", "-q", "-b", "main")
	e.write("README.md", "main\n")
	gitE2E(t, e.dir, "add", ".")
	gitE2E(t, e.dir, "commit", "-q", "-m", "first")
	e.run("-p", "--worktree", "feat", "--permission-mode", "acceptEdits", "write notes")
	e.wantCode(0)
	wt := filepath.Join(e.dir, ".claude", "worktrees", "feat")
	if b, err := os.ReadFile(filepath.Join(wt, "notes.txt")); err != nil || string(b) != "hi\n" {
		t.Errorf("the edit is not in the worktree: %q %v\nstderr: %s", b, err, e.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "notes.txt")); err == nil {
		t.Error("the edit landed in the main working tree")
	}
	if !strings.Contains(e.stderr, "the worktree is kept at "+wt+" (branch worktree-feat)") {
		t.Errorf("stderr does not say where the worktree is kept:\n%s", e.stderr)
	}
	if list := gitE2E(t, e.dir, "worktree", "list", "--porcelain"); !strings.Contains(list, "worktree "+wt) || !strings.Contains(list, "branch refs/heads/worktree-feat") {
		t.Errorf("git worktree list:\n%s", list)
	}
	// A second session of the same name is refused, naming the folder.
	e.run("-p", "--worktree", "feat", "x")
	if e.code == 0 || !strings.Contains(e.stderr, wt+" already exists") {
		t.Errorf("a second worktree named feat: exit %d\n%s", e.code, e.stderr)
	}
}

func TestJoinWorktreeName(t *testing.T) {
	tests := []struct{ in, want []string }{
		{[]string{"--worktree", "feat", "-p", "x"}, []string{"--worktree=feat", "-p", "x"}},
		{[]string{"-w", "feat-2"}, []string{"--worktree=feat-2"}},
		{[]string{"--worktree", "-p", "x"}, []string{"--worktree", "-p", "x"}},
		{[]string{"--worktree", "fix the bug"}, []string{"--worktree", "fix the bug"}},
		{[]string{"--", "--worktree", "feat"}, []string{"--", "--worktree", "feat"}},
	}
	for _, tt := range tests {
		if got := joinWorktreeName(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("joinWorktreeName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
