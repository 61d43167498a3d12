package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/reinsdev/reins/checkpoint"
	"github.com/reinsdev/reins/internal/app"
	"github.com/reinsdev/reins/internal/tui"
)

// chatCheckpoints is the session's checkpoints for the chat's /rewind.
type chatCheckpoints struct{ a *app.App }

// chatCheckpointsOf is nil (no /rewind) when the session keeps no checkpoints.
func chatCheckpointsOf(a *app.App) tui.Checkpoints {
	if a.Session.Checkpoints == nil {
		return nil
	}
	return chatCheckpoints{a}
}

func (c chatCheckpoints) Begin(ctx context.Context, id, label string) (context.Context, error) {
	return c.a.BeginCheckpoint(ctx, id, label)
}

func (c chatCheckpoints) Changed(id string) []string {
	return c.a.Session.Checkpoints.ChangedSince(id)
}

func (c chatCheckpoints) Rewind(ctx context.Context, id string) (string, error) {
	res, err := c.a.RewindFiles(ctx, id, checkpoint.RewindOptions{})
	var incomplete *checkpoint.IncompleteError
	if errors.As(err, &incomplete) {
		return rewindText(res), fmt.Errorf("not done: %d file(s) could not be put back (%s); the checkpoint is kept: /rewind to it again once that is fixed",
			len(incomplete.Failed), strings.Join(failedPaths(incomplete.Failed), ", "))
	}
	if err != nil {
		return "", err
	}
	return rewindText(res), nil
}

// rewindText says what a rewind did, in words: every file put back, and every one it did not
// with why.
func rewindText(res checkpoint.Result) string {
	var b strings.Builder
	if len(res.FilesChanged) == 0 {
		b.WriteString("Files: nothing to put back.")
	} else {
		fmt.Fprintf(&b, "Put back %s (+%d −%d lines): %s.", files(len(res.FilesChanged)), res.Insertions, res.Deletions, strings.Join(res.FilesChanged, ", "))
	}
	if len(res.Conflicts) > 0 {
		fmt.Fprintf(&b, "\nLeft as they are, changed since by someone other than the agent: %s.", strings.Join(res.Conflicts, ", "))
	}
	if res.SkippedLinks > 0 {
		fmt.Fprintf(&b, "\nSkipped %s: a symlink or another non-regular file stands at them or on the way.", files(res.SkippedLinks))
	}
	for _, s := range res.NotCaptured {
		fmt.Fprintf(&b, "\nNot captured, so not put back: %s (%s).", s.Path, s.Reason)
	}
	for _, s := range res.Failed {
		fmt.Fprintf(&b, "\nCould not put back %s: %s.", s.Path, s.Reason)
	}
	return b.String()
}

// files is "1 file", "2 files".
func files(n int) string {
	if n == 1 {
		return "1 file"
	}
	return fmt.Sprintf("%d files", n)
}
