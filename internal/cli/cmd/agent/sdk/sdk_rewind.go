package sdk

import (
	"context"
	"errors"

	"github.com/reinsdev/reins/checkpoint"
	"github.com/reinsdev/reins/internal/app"
	"github.com/reinsdev/reins/internal/sdkproto"
)

// sdkCheckpoints is the session's checkpoints in the SDK protocol's terms.
type sdkCheckpoints struct{ a *app.App }

func (c sdkCheckpoints) Begin(ctx context.Context, id, label string) (context.Context, error) {
	return c.a.BeginCheckpoint(ctx, id, label)
}

func (c sdkCheckpoints) Rewind(ctx context.Context, id string, dryRun bool) (sdkproto.RewindFilesResult, error) {
	res, err := c.a.RewindFiles(ctx, id, checkpoint.RewindOptions{DryRun: dryRun})
	if errors.As(err, new(*checkpoint.IncompleteError)) {
		return rewindResult(res, dryRun), nil
	}
	if err != nil {
		return sdkproto.RewindFilesResult{}, err
	}
	return rewindResult(res, dryRun), nil
}

// rewindResult is a rewind's result as the SDK's RewindFilesResult: a real rewind that could
// not put back every file it had to is not done (the checkpoint is kept, and rewind_files
// again retries it), so it answers canRewind false with the files in error.
func rewindResult(res checkpoint.Result, dryRun bool) sdkproto.RewindFilesResult {
	out := sdkproto.RewindFilesResult{CanRewind: true, FilesChanged: res.FilesChanged, Insertions: res.Insertions,
		Deletions: res.Deletions, Conflicts: res.Conflicts}
	if !dryRun {
		n := res.SkippedLinks
		out.SkippedLinks = &n
	}
	for _, s := range res.NotCaptured {
		out.NotCaptured = append(out.NotCaptured, s.Path+": "+s.Reason)
	}
	if len(res.Failed) > 0 {
		msg := "could not put back"
		for _, f := range res.Failed {
			msg += " " + f.Path + " (" + f.Reason + ")"
		}
		if !dryRun {
			msg += "; not done: the checkpoint is kept, rewind_files again retries it"
			out.CanRewind = false
		}
		out.Error = msg
	}
	if len(res.Conflicts) > 0 && out.Error == "" {
		out.Error = "changed since the agent's change and left as they are: see conflicts"
	}
	return out
}
