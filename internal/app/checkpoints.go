package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/reinsdev/reins/checkpoint"
	"github.com/reinsdev/reins/checkpoint/capture"
	"github.com/reinsdev/reins/toolcall"
)

// ErrCheckpointsOff is RewindFiles' error in a session that keeps no checkpoints.
var ErrCheckpointsOff = errors.New("file checkpointing is not enabled for this session")

// openCheckpoints opens the session's shadow store when Options.FileCheckpointing asks for
// one and no settings file (an administrator's first) turns it off: under the user's reins
// folder, one per session, so a resumed session rewinds to its earlier messages; in a
// temporary folder, removed at Close, for a session that saves nothing.
func (a *App) openCheckpoints(roots []string) error {
	if !a.opts.FileCheckpointing {
		return nil
	}
	on, warns := a.Settings.Loaded.FileCheckpointingEnabled(a.Settings.Trusted)
	for _, w := range warns {
		a.opts.Report.warn("%s", w)
	}
	if !on {
		a.opts.Report.note("file checkpointing is off: fileCheckpointingEnabled is false in the settings")
		return nil
	}
	var dir string
	switch {
	case a.Session.Recorder == nil || a.Settings.Options.ConfigDir == "":
		tmp, err := os.MkdirTemp("", "reins-checkpoints-")
		if err != nil {
			return fmt.Errorf("checkpoints: %w", err)
		}
		dir, a.Session.tempCheckpoints = tmp, tmp
	default:
		dir = filepath.Join(a.Settings.Options.ConfigDir, "checkpoints", a.Session.ID)
	}
	maxFile, maxTotal, warns := a.Settings.Loaded.CheckpointLimits(a.Settings.Trusted, checkpoint.DefaultMaxFileBytes, checkpoint.DefaultMaxTotalBytes)
	for _, w := range warns {
		a.opts.Report.warn("%s", w)
	}
	store, err := checkpoint.Open(dir, roots, checkpoint.Limits{MaxFileBytes: maxFile, MaxTotalBytes: maxTotal})
	if err != nil {
		return err
	}
	a.Session.Checkpoints = store
	return nil
}

// BeginCheckpoint starts the checkpoint of the user message id and returns the context its
// turn runs in: every call under it (sub-agents' and background tasks' included) is captured
// into that checkpoint. A new point is also a line of the session file, written before the
// message. Without checkpoints ctx is returned as it is.
func (a *App) BeginCheckpoint(ctx context.Context, id, label string) (context.Context, error) {
	if a.Session.Checkpoints == nil || id == "" {
		return ctx, nil
	}
	known := a.Session.Checkpoints.Has(id)
	if err := a.Session.Checkpoints.Begin(id, label); err != nil {
		return ctx, err
	}
	if a.Session.Recorder != nil && !known {
		// Where the conversation stands as the point begins, before its message is recorded:
		// reins rewind --conversation forks the session there (session.Store.LoadBefore).
		if err := a.Session.Recorder.AppendPoint(id); err != nil {
			return ctx, fmt.Errorf("recording the checkpoint in the session: %w", err)
		}
	}
	return toolcall.WithCapturer(ctx, capture.Turn{Store: a.Session.Checkpoints, Point: id}), nil
}

// RewindFiles puts the working directories back as they were at the user message id.
func (a *App) RewindFiles(ctx context.Context, id string, opts checkpoint.RewindOptions) (checkpoint.Result, error) {
	if a.Session.Checkpoints == nil {
		return checkpoint.Result{}, ErrCheckpointsOff
	}
	return a.Session.Checkpoints.Rewind(ctx, id, opts)
}

// closeCheckpoints removes a temporary store.
func (a *App) closeCheckpoints() error {
	if a.Session.tempCheckpoints == "" {
		return nil
	}
	return os.RemoveAll(a.Session.tempCheckpoints)
}
