package app

import (
	"context"
	"fmt"
	"strings"

	"github.com/reinsdev/reins/worktree"
)

// WorktreeOptions start a session in a git worktree of its own (reins --worktree [NAME]).
type WorktreeOptions struct {
	// Name is the worktree's name ("" for a new one); it lives under the main repository's
	// .claude/worktrees/NAME on the branch worktree-NAME.
	Name string
	// Confirm is asked, once, whether the secret files .worktreeinclude names (a .env) are
	// copied into the worktree; nil (headless) copies none of them, with a note.
	Confirm func(secrets []string) bool
}

// openWorktree creates the session's worktree before anything else is read: the settings,
// the trust, the session file and the tools all belong to the folder the session works in.
// The trust of the worktree is its main repository's (settings.IsTrusted).
func (a *App) openWorktree(ctx context.Context) error {
	wo := a.opts.Worktree
	if wo == nil {
		return nil
	}
	w, start, err := worktree.Create(ctx, a.git(), a.opts.Cwd, wo.Name)
	if err != nil {
		return &UsageError{Err: err}
	}
	a.Session.Worktree = w
	a.opts.Cwd, a.opts.Settings.Cwd = start, start
	// The person's local settings (ignored by git, so not in the checkout) decide here too: a
	// local deny rule of the main tree must hold in its worktree.
	if copied, err := worktree.CopyLocalSettings(w); err != nil {
		return err
	} else if len(copied) > 0 {
		a.opts.Report.note("copied %s into the worktree", strings.Join(copied, ", "))
	}
	a.opts.Report.note("Working in the worktree %s (branch %s); the main working tree %s is left alone", w.Path, w.Branch, w.Main)
	return nil
}

// copyIncluded copies what .worktreeinclude names into the new worktree, once the settings say
// which files hold secrets.
func (a *App) copyIncluded(ctx context.Context) error {
	if a.Session.Worktree == nil {
		return nil
	}
	pc := a.Settings.Context
	isSecret := func(p string) bool { _, secret := pc.SecretFile(ctx, p); return secret }
	res, err := worktree.CopyIncluded(ctx, a.git(), a.Session.Worktree, isSecret, a.opts.Worktree.Confirm)
	if err != nil {
		return err
	}
	if len(res.Copied) > 0 {
		a.opts.Report.note("%s: copied %s into the worktree", worktree.IncludeFile, strings.Join(res.Copied, ", "))
	}
	for _, n := range res.Notes {
		a.opts.Report.note("%s", n)
	}
	return nil
}

func (a *App) git() *worktree.Git { return &worktree.Git{} }

// WorktreeChanges says what removing the session's worktree would lose (uncommitted files,
// commits on its branch); empty when nothing, or when the session has no worktree.
func (a *App) WorktreeChanges(ctx context.Context) ([]string, error) {
	if a.Session.Worktree == nil {
		return nil, nil
	}
	return worktree.Changes(ctx, a.git(), a.Session.Worktree)
}

// RemoveWorktree removes the session's worktree and its branch; with changes it refuses unless
// discard. The session must be closed first: its shell and tools work in the worktree.
func (a *App) RemoveWorktree(ctx context.Context, discard bool) error {
	if a.Session.Worktree == nil {
		return nil
	}
	if !a.life.closed {
		return fmt.Errorf("removing the worktree of a session that is still open")
	}
	return worktree.Remove(ctx, a.git(), a.Session.Worktree, discard)
}
