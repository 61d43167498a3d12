package shared

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/reinsdev/reins/internal/app"
	"github.com/reinsdev/reins/internal/cli/cmdutil"
	"github.com/reinsdev/reins/worktree"
)

// WorktreeFlag is --worktree [NAME]: the session works in a git worktree of its own.
type WorktreeFlag struct {
	Name string
	cmd  *cobra.Command
}

func (w *WorktreeFlag) Register(cmd *cobra.Command) {
	w.cmd = cmd
	fl := cmd.Flags()
	fl.StringVarP(&w.Name, "worktree", "w", "", "work in a new git worktree under .claude/worktrees/NAME on the branch worktree-NAME (a new name when none is given)")
	fl.Lookup("worktree").NoOptDefVal = cmdutil.AutoWorktree
}

// options are the app's worktree options; nil without --worktree. confirm asks about the
// secret files .worktreeinclude names (nil: headless, none copied).
func (w *WorktreeFlag) options(confirm func([]string) bool) *app.WorktreeOptions {
	if w.cmd == nil || !w.cmd.Flags().Changed("worktree") {
		return nil
	}
	name := w.Name
	if name == cmdutil.AutoWorktree {
		name = ""
	}
	return &app.WorktreeOptions{Name: name, Confirm: confirm}
}

// LeaveWorktree ends a session that worked in a worktree, after the session closed. In the
// chat it asks whether to keep or remove it (and again before discarding changes); headless it
// keeps it and says where.
func LeaveWorktree(ctx context.Context, f *cmdutil.Factory, a *app.App, in io.Reader, ask bool) {
	w := a.Session.Worktree
	if w == nil {
		return
	}
	ctx = context.WithoutCancel(ctx)
	kept := func() {
		fmt.Fprintf(f.ErrOut, "reins: the worktree is kept at %s (branch %s); remove it with: git worktree remove '%s' && git branch -D %s\n",
			w.Path, w.Branch, strings.ReplaceAll(w.Path, "'", `'\''`), w.Branch)
	}
	if !ask {
		kept()
		return
	}
	r := bufio.NewReader(in)
	changes, err := a.WorktreeChanges(ctx)
	if err != nil {
		f.Warn("%v", err)
		kept()
		return
	}
	fmt.Fprintf(f.ErrOut, "The session worked in the worktree %s (branch %s).\n", w.Path, w.Branch)
	if !cmdutil.Yes(r, f.ErrOut, "Remove it and its branch? [y/N] ") {
		kept()
		return
	}
	discard := false
	if len(changes) > 0 {
		if !cmdutil.Yes(r, f.ErrOut, fmt.Sprintf("It has %s, which removing it discards. Remove anyway? [y/N] ", strings.Join(changes, " and "))) {
			kept()
			return
		}
		discard = true
	}
	if err := a.RemoveWorktree(ctx, discard); err != nil {
		f.Warn("%v", err)
		kept()
		return
	}
	fmt.Fprintf(f.ErrOut, "reins: removed the worktree %s and its branch %s\n", w.Path, w.Branch)
}

// confirmSecrets asks, before the session starts, whether the secret files .worktreeinclude
// names are copied into the new worktree.
func confirmSecrets(f *cmdutil.Factory, in io.Reader) func([]string) bool {
	return func(secrets []string) bool {
		return cmdutil.Yes(bufio.NewReader(in), f.ErrOut, fmt.Sprintf("%s names files that hold secrets: %s. Copy them into the worktree? [y/N] ",
			worktree.IncludeFile, strings.Join(secrets, ", ")))
	}
}
