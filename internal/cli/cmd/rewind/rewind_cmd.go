// Package rewind holds `reins rewind`: a saved conversation's files put back to a checkpoint.
package rewind

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/reinsdev/reins/checkpoint"
	"github.com/reinsdev/reins/internal/cli/cmdutil"
	"github.com/reinsdev/reins/session"
)

// rewindRequest is what reins rewind was asked to do with a saved session.
type rewindRequest struct {
	cwd, configDir, id string
	to                 string
	code, conversation bool
	dry                bool
}

type rewindOptions struct {
	f            *cmdutil.Factory
	args         []string
	req          rewindRequest
	conversation bool
	both         bool
}

func NewCmdRewind(f *cmdutil.Factory, runF func(*rewindOptions) error) *cobra.Command {
	opts := &rewindOptions{f: f}
	cmd := &cobra.Command{
		Use:   "rewind [SESSION_ID]",
		Short: "List a saved session's checkpoints, or go back to before one of its messages: its files, its conversation, or both",
		Long: `Without --to, lists the checkpoints of SESSION_ID (default: this folder's latest session):
one per message, with the files changed since. With --to (a message's number in that list, or
its id), goes back to before that message:

  --code (the default)  puts the working directories back as they were: what Edit, Write,
                        NotebookEdit and Bash commands changed, untracked and git-ignored
                        files included
  --conversation        writes the conversation up to (not including) that message as a NEW
                        session, and prints its id and the command to resume it; the saved
                        session is left as it is
  --both                both

--dry-run says what would happen and changes nothing. A file someone else changed after the
agent did is left as it is and named; a symlink at a file or on the way to it is never
followed (the file is skipped and counted). The conversation is cut where the session file
marks the message's checkpoint; a session without that mark (saved before reins wrote them)
can only have its files rewound.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.args = args
			if runF != nil {
				return runF(opts)
			}
			return rewindRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.req.to, "to", "", "go back to before this message (its number in the list, or its id)")
	fl.BoolVar(&opts.req.dry, "dry-run", false, "say what would happen, change nothing")
	fl.Bool("code", false, "put back the files (the default)")
	fl.BoolVar(&opts.conversation, "conversation", false, "fork the conversation before the message into a new session (the files stay)")
	fl.BoolVar(&opts.both, "both", false, "put back the files and fork the conversation")
	return cmd
}

func rewindRun(ctx context.Context, opts *rewindOptions) error {
	f := opts.f
	if opts.conversation && opts.both {
		return cmdutil.UsageErrorf("--conversation and --both: choose one")
	}
	opts.req.conversation = opts.conversation || opts.both
	opts.req.code = !opts.conversation
	if opts.req.conversation && opts.req.to == "" {
		return cmdutil.UsageErrorf("--conversation and --both need --to: the message to go back to (reins rewind lists them)")
	}
	var err error
	if opts.req.cwd, err = cmdutil.WorkDir(f); err != nil {
		return err
	}
	opts.req.configDir = cmdutil.SettingsOptions(f, opts.req.cwd).ConfigDir
	if len(opts.args) == 1 {
		opts.req.id = opts.args[0]
	} else if opts.req.id, err = session.NewStore(opts.req.configDir).Latest(opts.req.cwd); err != nil {
		return fmt.Errorf("no saved session in this folder: %w", err)
	}
	return runRewind(ctx, f, opts.req)
}

// runRewind lists the session's points, or rewinds to the one req names.
func runRewind(ctx context.Context, f *cmdutil.Factory, req rewindRequest) error {
	if !session.ValidID(req.id) {
		return cmdutil.UsageErrorf("invalid session id %q: want a UUID", req.id)
	}
	store, err := checkpoint.Reopen(filepath.Join(req.configDir, "checkpoints", req.id), checkpoint.Limits{})
	if err != nil {
		return fmt.Errorf("session %s keeps no checkpoints: %w", req.id, err)
	}
	if req.to == "" {
		listPoints(f, req.id, store)
		return nil
	}
	point, ok := pointID(store, req.to)
	if !ok {
		return cmdutil.UsageErrorf("no checkpoint %q: run reins rewind without --to for the list", req.to)
	}
	var before *session.Transcript
	if req.conversation {
		// Read before anything changes: a rewind of the files drops the later points.
		if before, err = conversationBefore(ctx, req, point); err != nil {
			return err
		}
	}
	if req.dry {
		fmt.Fprintln(f.Out, "Dry run: nothing was changed.")
	}
	if req.code {
		// The files first: a rewind that could not put them all back is retried whole, and a
		// fork made before it would be made twice.
		if err := rewindStore(ctx, f, store, point, req.dry); err != nil {
			if before != nil {
				fmt.Fprintln(f.Out, "Conversation: not forked, since the files were not all put back.")
			}
			return err
		}
	}
	if before != nil {
		return forkBefore(f, req, before)
	}
	return nil
}

// pointID is the id of the point to, a number of the list or an id.
func pointID(store *checkpoint.Store, to string) (string, bool) {
	points := store.Points()
	if n, err := strconv.Atoi(to); err == nil && n >= 1 && n <= len(points) {
		return points[n-1].ID, true
	}
	return to, store.Has(to)
}

// conversationBefore is the session's conversation as it stood when point began, read from
// the point's line in the session file; never found by a message's text.
func conversationBefore(ctx context.Context, req rewindRequest, point string) (*session.Transcript, error) {
	t, err := session.NewStore(req.configDir).LoadBefore(ctx, req.cwd, req.id, point)
	if errors.Is(err, session.ErrNoPoint) {
		return nil, fmt.Errorf("%w: its conversation cannot be cut exactly before that message (a session saved before reins marked its checkpoints, or one the chat switched to with /resume); --code puts back its files", err)
	}
	return t, err
}

// forkBefore writes the conversation before the point as a new session, or says what it would
// write.
func forkBefore(f *cmdutil.Factory, req rewindRequest, t *session.Transcript) error {
	if req.dry {
		fmt.Fprintf(f.Out, "Conversation: would write the %d message(s) before message %s as a new session; session %s stays as it is.\n", len(t.Messages), req.to, req.id)
		return nil
	}
	id, err := session.NewStore(req.configDir).Fork(cmp.Or(t.Cwd, req.cwd), t.Model, t)
	if err != nil {
		return fmt.Errorf("forking the conversation: %w", err)
	}
	fmt.Fprintf(f.Out, "Conversation: the %d message(s) before message %s are the new session %s (session %s stays as it is). Resume it with: reins --resume %s\n",
		len(t.Messages), req.to, id, req.id, id)
	return nil
}

// listPoints prints a session's checkpoints, numbered from 1.
func listPoints(f *cmdutil.Factory, id string, store *checkpoint.Store) {
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

// rewindStore rewinds the files to the point id and prints what it did.
func rewindStore(ctx context.Context, f *cmdutil.Factory, store *checkpoint.Store, id string, dry bool) error {
	res, err := store.Rewind(ctx, id, checkpoint.RewindOptions{DryRun: dry})
	if errors.Is(err, checkpoint.ErrNoPoint) {
		return cmdutil.UsageErrorf("no checkpoint %q: run reins rewind without --to for the list", id)
	}
	var incomplete *checkpoint.IncompleteError
	if errors.As(err, &incomplete) {
		fmt.Fprintln(f.Out, cmdutil.RewindText(res))
		return fmt.Errorf("the rewind is not done: %d file(s) could not be put back (%s); the checkpoint is kept: run reins rewind --to %s again once that is fixed",
			len(incomplete.Failed), strings.Join(cmdutil.FailedPaths(incomplete.Failed), ", "), id)
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(f.Out, cmdutil.RewindText(res))
	return nil
}
