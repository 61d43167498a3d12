package hooks

import (
	"cmp"
	"context"
	"errors"
	"time"
)

// Exec runs a command the way a hook runs — sh -c in the project folder, in a process group
// of its own that is reported to Groups and killed at the timeout (and whose leftovers end at
// Close), the hooks' environment, input on standard input — with each output stream capped at
// maxOutput. It is for a settings file's code that is not a hook: the status line. Its caller
// must have checked, as for hooks, that the command may run (trust, disableAllHooks).
func (r *Runner) Exec(ctx context.Context, command string, input []byte, timeout time.Duration, maxOutput int) (Raw, error) {
	if r == nil {
		return Raw{}, errors.New("no runner")
	}
	ctx, cancel := context.WithTimeout(ctx, cmp.Or(timeout, DefaultTimeout))
	defer cancel()
	raw, err := r.shellCapped(ctx, command, input, r.ProjectDir, cmp.Or(maxOutput, DefaultMaxOutput))
	if ctx.Err() != nil {
		return raw, ctx.Err()
	}
	return raw, err
}
