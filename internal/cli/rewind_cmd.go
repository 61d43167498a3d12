package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/reinsdev/reins/checkpoint"
	"github.com/reinsdev/reins/session"
)

func newCmdRewind(f *Factory) *cobra.Command {
	var to string
	var dry, conversation, both bool
	cmd := &cobra.Command{
		Use:   "rewind [SESSION_ID]",
		Short: "List a saved session's checkpoints, or put its files back as they were before a message",
		Long: `Without --to, lists the checkpoints of SESSION_ID (default: this folder's latest session):
one per message, with the files changed since. With --to (a message's number in that list, or
its id), puts the working directories back as they were before that message: what Edit,
Write, NotebookEdit and Bash commands changed, untracked and git-ignored files included.
--dry-run says what would change and changes nothing. A file someone else changed after the
agent did is left as it is and named; a symlink at a file or on the way to it is never
followed (the file is skipped and counted).

Only the files of a saved session can be rewound here (--code, the default); its
conversation is rewound in the chat (/rewind).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if conversation || both {
				return usageErrorf("reins rewind puts back files only (--code): rewind the conversation in the chat with /rewind")
			}
			cwd, err := workDir(f)
			if err != nil {
				return err
			}
			dir := settingsOptions(f, cwd).ConfigDir
			id := ""
			if len(args) == 1 {
				id = args[0]
			} else if id, err = session.NewStore(dir).Latest(cwd); err != nil {
				return fmt.Errorf("no saved session in this folder: %w", err)
			}
			if !session.ValidID(id) {
				return usageErrorf("invalid session id %q: want a UUID", id)
			}
			store, err := checkpoint.Reopen(filepath.Join(dir, "checkpoints", id), checkpoint.Limits{})
			if err != nil {
				return fmt.Errorf("session %s keeps no checkpoints: %w", id, err)
			}
			if to == "" {
				listPoints(f, id, store)
				return nil
			}
			return rewindStore(cmd.Context(), f, store, to, dry)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&to, "to", "", "put the files back as they were before this message (its number in the list, or its id)")
	fl.BoolVar(&dry, "dry-run", false, "say what would change, change nothing")
	fl.Bool("code", false, "put back the files (the default)")
	fl.BoolVar(&conversation, "conversation", false, "rewind the conversation (only in the chat's /rewind)")
	fl.BoolVar(&both, "both", false, "files and conversation (only in the chat's /rewind)")
	return cmd
}

// listPoints prints a session's checkpoints, numbered from 1.
func listPoints(f *Factory, id string, store *checkpoint.Store) {
	points := store.Points()
	if len(points) == 0 {
		fmt.Fprintf(f.Out, "Session %s has no checkpoints.\n", id)
		return
	}
	fmt.Fprintf(f.Out, "Checkpoints of session %s (reins rewind %s --to N):\n", id, id)
	for i, p := range points {
		n := len(store.ChangedSince(p.ID))
		fmt.Fprintf(f.Out, "%3d  %s  %q  %d file(s) changed since\n", i+1, p.ID, p.Label, n)
	}
}

// rewindStore rewinds to the point named by its number or id and prints what it did.
func rewindStore(ctx context.Context, f *Factory, store *checkpoint.Store, to string, dry bool) error {
	points := store.Points()
	id := to
	if n, err := strconv.Atoi(to); err == nil && n >= 1 && n <= len(points) {
		id = points[n-1].ID
	}
	res, err := store.Rewind(ctx, id, checkpoint.RewindOptions{DryRun: dry})
	if errors.Is(err, checkpoint.ErrNoPoint) {
		return usageErrorf("no checkpoint %q: run reins rewind without --to for the list", to)
	}
	if err != nil {
		return err
	}
	if dry {
		fmt.Fprintln(f.Out, "Dry run: nothing was changed.")
	}
	fmt.Fprintln(f.Out, rewindText(res))
	return nil
}
