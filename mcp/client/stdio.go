package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A stdio server is ended the way the MCP specification describes — its input closed, then
// SIGTERM, then SIGKILL — but without the long waits between the steps: most servers exit at
// end of input within a few milliseconds, and one that has not by then is not reading it
// (the reference server-everything, anything that keeps a timer running), so waiting longer
// only delays the exit of reins. Each signal goes to the server's whole process group (it
// runs in its own: a server started through npx or a shell is several processes), and the
// servers of a session are ended at once (Manager.Close).

// The graces are variables for tests, which cannot rely on a loaded machine's timing.
var (
	// stdinGrace is how long a server has to exit after its input closes.
	stdinGrace = 30 * time.Millisecond
	// termGrace is how long its process group has after SIGTERM, before SIGKILL.
	termGrace = 30 * time.Millisecond
)

const (
	// killWait bounds the wait for a process after SIGKILL (one in uninterruptible sleep
	// may not die at once); Close gives up then rather than hang the exit.
	killWait = 2 * time.Second
	// pipeWait is how long the exit of the server waits for the pipes it shared with
	// processes that left its process group (see exec.Cmd.WaitDelay).
	pipeWait = 100 * time.Millisecond
)

// stdioTransport runs a stdio server in its own process group and talks to it over its
// standard input and output, as mcp.CommandTransport does; its connection's Close is the
// shutdown above.
type stdioTransport struct {
	cmd *exec.Cmd
}

// Connect starts the command.
func (t *stdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	cmd := t.cmd
	ownGroup(cmd)
	cmd.WaitDelay = pipeWait
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &stdioProcess{cmd: cmd, stdin: stdin, exited: make(chan struct{})}
	go p.wait()
	// Closing the connection closes the server's input, never its output: a server that
	// exits at end of input may still be writing its last words.
	return (&mcp.IOTransport{Reader: io.NopCloser(stdout), Writer: p}).Connect(ctx)
}

// stdioProcess is a running stdio server: its input, and its end.
type stdioProcess struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser

	exited  chan struct{} // closed once the process has exited and been waited for
	waitErr error

	closeOnce sync.Once
	closeErr  error
}

func (p *stdioProcess) wait() {
	p.waitErr = p.cmd.Wait()
	close(p.exited)
}

func (p *stdioProcess) Write(b []byte) (int, error) { return p.stdin.Write(b) }

// Close ends the server: its input closed; after stdinGrace, SIGTERM to its process group;
// after termGrace more, SIGKILL. A server that exits at end of input costs its own exit time,
// and gets no signal; what it leaves running in its group gets the same SIGTERM and SIGKILL.
// The caller kills what is left of the group at the end (killGroup).
func (p *stdioProcess) Close() error {
	p.closeOnce.Do(func() { p.closeErr = p.shutdown() })
	return p.closeErr
}

func (p *stdioProcess) shutdown() error {
	_ = p.stdin.Close()
	exited := p.waitFor(stdinGrace)
	var err error
	if exited {
		err = p.exitErr()
	}
	// ESRCH: nothing is left of the group, and nothing is waited for. Otherwise the server
	// (ended as asked: not a failure) and then what it started have termGrace in all.
	if signalGroup(p.cmd, syscall.SIGTERM) == nil {
		deadline := time.Now().Add(termGrace)
		if !exited {
			exited = p.waitFor(termGrace)
		}
		if exited {
			p.waitGroup(time.Until(deadline))
		}
	}
	_ = signalGroup(p.cmd, syscall.SIGKILL)
	if !exited && !p.waitFor(killWait) {
		return fmt.Errorf("process %d did not end after SIGKILL", p.cmd.Process.Pid)
	}
	return err
}

// waitGroup waits, at most d, for the end of the server's process group once the server has
// exited: its children's. (A child that has ended but that nobody has reaped yet still counts,
// within d.)
func (p *stdioProcess) waitGroup(d time.Duration) {
	deadline := time.Now().Add(d)
	for signalGroup(p.cmd, 0) == nil && time.Now().Before(deadline) {
		time.Sleep(2 * time.Millisecond)
	}
}

// waitFor reports whether the process exits within d.
func (p *stdioProcess) waitFor(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return true
	case <-t.C:
		return false
	}
}

// exitErr is the server's own exit: a failure status is its failure, reported; pipes still
// held by processes it left behind are not.
func (p *stdioProcess) exitErr() error {
	if errors.Is(p.waitErr, exec.ErrWaitDelay) {
		return nil
	}
	return p.waitErr
}
