package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/reinsdev/reins/internal/app"
	"github.com/reinsdev/reins/worktree"
)

// worktreeFlag is --worktree [NAME]: the session works in a git worktree of its own.
type worktreeFlag struct {
	name string
	cmd  *cobra.Command
}

// autoWorktree is --worktree given without a name.
const autoWorktree = "\x00new"

func (w *worktreeFlag) register(cmd *cobra.Command) {
	w.cmd = cmd
	fl := cmd.Flags()
	fl.StringVarP(&w.name, "worktree", "w", "", "work in a new git worktree under .claude/worktrees/NAME on the branch worktree-NAME (a new name when none is given)")
	fl.Lookup("worktree").NoOptDefVal = autoWorktree
}

// options are the app's worktree options; nil without --worktree. confirm asks about the
// secret files .worktreeinclude names (nil: headless, none copied).
func (w *worktreeFlag) options(confirm func([]string) bool) *app.WorktreeOptions {
	if w.cmd == nil || !w.cmd.Flags().Changed("worktree") {
		return nil
	}
	name := w.name
	if name == autoWorktree {
		name = ""
	}
	return &app.WorktreeOptions{Name: name, Confirm: confirm}
}

// joinWorktreeName reads "--worktree NAME" (and "-w NAME") as "--worktree=NAME" when NAME is a
// worktree name: the flag's value is optional, which the flag parser would otherwise never
// take from the next argument.
func joinWorktreeName(args []string) []string {
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

// leaveWorktree ends a session that worked in a worktree, after the session closed. In the
// chat it asks whether to keep or remove it (and again before discarding changes); headless it
// keeps it and says where.
func leaveWorktree(ctx context.Context, f *Factory, a *app.App, in io.Reader, ask bool) {
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
		f.warn("%v", err)
		kept()
		return
	}
	fmt.Fprintf(f.ErrOut, "The session worked in the worktree %s (branch %s).\n", w.Path, w.Branch)
	if !yes(r, f.ErrOut, "Remove it and its branch? [y/N] ") {
		kept()
		return
	}
	discard := false
	if len(changes) > 0 {
		if !yes(r, f.ErrOut, fmt.Sprintf("It has %s, which removing it discards. Remove anyway? [y/N] ", strings.Join(changes, " and "))) {
			kept()
			return
		}
		discard = true
	}
	if err := a.RemoveWorktree(ctx, discard); err != nil {
		f.warn("%v", err)
		kept()
		return
	}
	fmt.Fprintf(f.ErrOut, "reins: removed the worktree %s and its branch %s\n", w.Path, w.Branch)
}

// confirmSecrets asks, before the session starts, whether the secret files .worktreeinclude
// names are copied into the new worktree.
func confirmSecrets(f *Factory, in io.Reader) func([]string) bool {
	return func(secrets []string) bool {
		return yes(bufio.NewReader(in), f.ErrOut, fmt.Sprintf("%s names files that hold secrets: %s. Copy them into the worktree? [y/N] ",
			worktree.IncludeFile, strings.Join(secrets, ", ")))
	}
}

// yes asks a question on the terminal; anything but y or yes is no.
func yes(r *bufio.Reader, w io.Writer, q string) bool {
	fmt.Fprint(w, q)
	line, _ := r.ReadString('\n')
	a := strings.ToLower(strings.TrimSpace(line))
	return a == "y" || a == "yes"
}
