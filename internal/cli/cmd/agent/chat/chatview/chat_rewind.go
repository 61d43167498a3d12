package chatview

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/reinsdev/reins/checkpoint"
	"github.com/reinsdev/reins/internal/app"
	"github.com/reinsdev/reins/internal/cli/cmdutil"
	"github.com/reinsdev/reins/internal/tui"
)

// chatCheckpoints is the session's checkpoints for the chat's /rewind.
type chatCheckpoints struct{ a *app.App }

// CheckpointsOf is nil (no /rewind) when the session keeps no checkpoints.
func CheckpointsOf(a *app.App) tui.Checkpoints {
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
		return cmdutil.RewindText(res), fmt.Errorf("not done: %d file(s) could not be put back (%s); the checkpoint is kept: /rewind to it again once that is fixed",
			len(incomplete.Failed), strings.Join(cmdutil.FailedPaths(incomplete.Failed), ", "))
	}
	if err != nil {
		return "", err
	}
	return cmdutil.RewindText(res), nil
}
