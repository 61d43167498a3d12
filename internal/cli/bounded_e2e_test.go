package cli

import (
	"bytes"
	"errors"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// runBounded is run for a command that might hang: it gets patience to end by itself; past
// it, SIGTERM, and if that is ignored too, SIGKILL. ended says it ended within its patience;
// termed that SIGTERM ended it (false when it never came to that, or when it was ignored).
func (e *e2e) runBounded(patience time.Duration, args ...string) (ended, termed bool) {
	e.t.Helper()
	cmd := exec.Command(e.bin, args...)
	cmd.Dir, cmd.Env = e.dir, e.env
	cmd.Stdin = strings.NewReader(e.stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
		ended = true
	case <-time.After(patience):
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err = <-done:
			termed = true
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			err = <-done
		}
	}
	e.stdout, e.stderr, e.code = out.String(), errOut.String(), 0
	if ee, ok := errors.AsType[*exec.ExitError](err); ok {
		e.code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatal(err)
	}
	return ended, termed
}
