package cmdutil

import "github.com/reinsdev/reins/worktree"

// AutoWorktree is --worktree given without a name.
const AutoWorktree = "\x00new"

// JoinWorktreeName reads "--worktree NAME" (and "-w NAME") as "--worktree=NAME" when NAME is a
// worktree name: the flag's value is optional, which the flag parser would otherwise never
// take from the next argument.
func JoinWorktreeName(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if (a == "--worktree" || a == "-w") && i+1 < len(args) && worktree.CheckName(args[i+1]) == nil {
			out = append(out, "--worktree="+args[i+1])
			i++
			continue
		}
		out = append(out, a)
	}
	return out
}
