package worktree

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Default bounds of one git run.
const (
	DefaultTimeout   = 60 * time.Second
	DefaultMaxOutput = 4 << 20
)

// Git runs the git CLI for worktrees, bounded: each run has a timeout, output over MaxOutput
// fails it, and its process group is ended when it returns.
type Git struct {
	// Path is the git program; "" finds git in PATH.
	Path string
	// Env is the environment git starts from; nil is the process's. The GIT_ variables are
	// dropped from it either way.
	Env []string
	// Timeout and MaxOutput bound a run; zero is the default.
	Timeout   time.Duration
	MaxOutput int
}

// safeConfig runs none of the repository's programs that a worktree command would otherwise
// start: hooks (post-checkout on worktree add), the fsmonitor, and no pager.
var safeConfig = []string{"-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c", "core.pager=cat", "--no-optional-locks"}

// Output runs git in dir with args and returns its standard output.
func (g *Git) Output(ctx context.Context, dir string, args ...string) (string, error) {
	bin := g.Path
	if bin == "" {
		p, err := exec.LookPath("git")
		if err != nil {
			return "", fmt.Errorf("git is not installed: %w", err)
		}
		bin = p
	}
	ctx, cancel := context.WithTimeout(ctx, cmp.Or(g.Timeout, DefaultTimeout))
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(append([]string{"-C", dir}, safeConfig...), args...)...)
	cmd.Env = g.env()
	limit := cmp.Or(g.MaxOutput, DefaultMaxOutput)
	stdout, stderr := &capped{n: limit}, &capped{n: 4096}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	startGroup(cmd)
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	endGroup(cmd)
	switch {
	case ctx.Err() != nil:
		return "", fmt.Errorf("git %s: %w", strings.Join(args, " "), ctx.Err())
	case err != nil:
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	case stdout.over:
		return "", fmt.Errorf("git %s: more than %d bytes of output", strings.Join(args, " "), limit)
	}
	return stdout.String(), nil
}

func (g *Git) env() []string {
	base := g.Env
	if base == nil {
		base = os.Environ()
	}
	var env []string
	for _, kv := range base {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	return append(env, "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
}

// capped keeps the first n bytes written and notes that more came.
type capped struct {
	bytes.Buffer
	n    int
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.n - c.Len(); len(p) > room {
		c.over = true
		if room > 0 {
			c.Buffer.Write(p[:room])
		}
		return len(p), nil
	}
	return c.Buffer.Write(p)
}
