package provider

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/reinsdev/reins/hooks"
	"github.com/reinsdev/reins/llm/anthropic"
	"github.com/reinsdev/reins/settings"
)

// Claude Code's refresh interval of an apiKeyHelper's key, and the time a helper may take.
// Claude Code sets no time limit; Reins gives a helper a minute (enough for a secrets manager
// that asks for a fingerprint) rather than let a hung one hold the session forever.
const (
	defaultKeyHelperTTL     = 5 * time.Minute
	defaultKeyHelperTimeout = time.Minute
	// keyHelperMaxOut bounds what is read of a helper's output: a key is short, and a helper
	// that prints a file must not fill the memory.
	keyHelperMaxOut = 64 << 10
	keyHelperMaxErr = 4 << 10
)

// keyHelper is the anthropic.CredentialSource of an apiKeyHelper: the command runs through
// /bin/sh in the session's folder, its trimmed standard output is the key, sent in both
// Authorization: Bearer and X-Api-Key as Claude Code sends it. The key is kept for ttl; a
// refresh (after a 401) runs the command again whatever the age. A helper that fails, times
// out, or prints nothing is an error naming the helper and where it was set, with its stderr:
// never an empty key.
type keyHelper struct {
	helper  settings.KeyHelper
	dir     string
	ttl     time.Duration
	timeout time.Duration
	now     func() time.Time
	// groups, when set, watches the helper's process group while it runs, so that it ends
	// even if this process is killed meanwhile.
	groups hooks.GroupGuard

	mu  sync.Mutex // held while the helper runs: concurrent requests wait for one run
	key string
	got time.Time
}

// newKeyHelper reads the helper's refresh interval (CLAUDE_CODE_API_KEY_HELPER_TTL_MS) and
// time limit (REINS_API_KEY_HELPER_TIMEOUT_MS) from the environment; a value that is no
// number of milliseconds is an error naming the variable.
func newKeyHelper(h settings.KeyHelper, dir string, getenv func(string) string) (*keyHelper, error) {
	ttl, err := envMillis(getenv, "CLAUDE_CODE_API_KEY_HELPER_TTL_MS", defaultKeyHelperTTL, true)
	if err != nil {
		return nil, err
	}
	timeout, err := envMillis(getenv, "REINS_API_KEY_HELPER_TIMEOUT_MS", defaultKeyHelperTimeout, false)
	if err != nil {
		return nil, err
	}
	return &keyHelper{helper: h, dir: dir, ttl: ttl, timeout: timeout, now: time.Now}, nil
}

// envMillis reads a duration in milliseconds; zero is accepted only where zeroOK.
func envMillis(getenv func(string) string, name string, def time.Duration, zeroOK bool) (time.Duration, error) {
	raw := strings.TrimSpace(getenv(name))
	if raw == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || n < 0 || (n == 0 && !zeroOK) || n > int64(24*time.Hour/time.Millisecond) {
		return 0, fmt.Errorf("%s must be a whole number of milliseconds between %d and a day, not %q", name, map[bool]int{true: 0, false: 1}[zeroOK], raw)
	}
	return time.Duration(n) * time.Millisecond, nil
}

// Credential implements anthropic.CredentialSource.
func (k *keyHelper) Credential(ctx context.Context, refresh bool) (anthropic.Credential, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if refresh || k.key == "" || k.now().Sub(k.got) >= k.ttl {
		key, err := k.run(ctx)
		if err != nil {
			k.key = ""
			return anthropic.Credential{}, err
		}
		k.key, k.got = key, k.now()
	}
	return anthropic.Credential{Bearer: k.key, XAPIKey: k.key}, nil
}

// errKeyHelperTimeout tells the helper's own time limit from the caller's cancellation.
var errKeyHelperTimeout = errors.New("apiKeyHelper timed out")

// run runs the helper once and returns the key it printed.
func (k *keyHelper) run(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, k.timeout, errKeyHelperTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", k.helper.Command)
	cmd.Dir = k.dir
	setKeyHelperGroup(cmd)
	// A helper that leaves a child holding its output open is not waited for.
	cmd.WaitDelay = 500 * time.Millisecond
	stdout := &capped{max: keyHelperMaxOut}
	stderr := &capped{max: keyHelperMaxErr}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err := k.runInGroup(cmd)
	switch {
	case context.Cause(ctx) == errKeyHelperTimeout:
		return "", k.fail(fmt.Sprintf("did not finish within %s (REINS_API_KEY_HELPER_TIMEOUT_MS) and was killed", k.timeout), stderr)
	case ctx.Err() != nil:
		return "", ctx.Err()
	case err != nil:
		return "", k.fail(failure(err), stderr)
	case stdout.over:
		return "", k.fail(fmt.Sprintf("printed more than %d KiB; a key is one short line", keyHelperMaxOut>>10), nil)
	}
	key := strings.TrimSpace(stdout.String())
	switch {
	case key == "":
		return "", k.fail("printed nothing: its standard output must be the key", stderr)
	case strings.ContainsFunc(key, func(r rune) bool { return r < ' ' || r == 0x7f }):
		return "", k.fail("printed more than one line, or a control character: its standard output must be the key alone", nil)
	}
	return key, nil
}

// runInGroup runs the helper's shell and, once it has returned (or was killed at its time
// limit), ends what it left running in its process group: a helper's work is done when it has
// printed the key, and a background child (`refresher &`) would otherwise outlive it with the
// helper's credentials. The group is under the guard while the helper runs. A child that
// holds the helper's output open is not waited for past WaitDelay: what the shell printed
// before it exited is its output.
func (k *keyHelper) runInGroup(cmd *exec.Cmd) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	pgid := cmd.Process.Pid
	if k.groups != nil {
		_ = k.groups.Watch(pgid)
	}
	err := cmd.Wait()
	if errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState != nil && cmd.ProcessState.Success() {
		err = nil
	}
	endKeyHelperGroup(pgid)
	if k.groups != nil {
		_ = k.groups.Unwatch(pgid)
	}
	return err
}

// failure says how a helper's run failed, in words.
func failure(err error) string {
	if ee, ok := errors.AsType[*exec.ExitError](err); ok {
		return "failed with " + ee.ProcessState.String()
	}
	return "could not run: " + err.Error()
}

// fail is a helper's error: what happened, which helper, where it was set, and the end of its
// stderr. The key is never part of it.
func (k *keyHelper) fail(what string, stderr *capped) error {
	msg := fmt.Sprintf("apiKeyHelper %q (set in %s) %s", k.helper.Command, k.helper.Origin(), what)
	if stderr != nil {
		if s := strings.TrimSpace(stderr.String()); s != "" {
			msg += "; its stderr:\n" + s
		}
	}
	return errors.New(msg)
}

// capped keeps the first max bytes written to it and notes whether more came. It has no
// ReadFrom, so that io.Copy goes through Write and the cap.
type capped struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); len(p) > room {
		c.over = true
		c.buf.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return c.buf.Write(p)
}

func (c *capped) String() string { return c.buf.String() }
