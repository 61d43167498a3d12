package cli

import (
	"slices"
	"testing"
)

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
