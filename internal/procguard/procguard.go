// Package procguard makes sure the process groups a reins process started end with it, even
// when reins itself is killed with SIGKILL and can run no clean-up.
//
// A [Guard] is a small watchdog: the reins executable re-run with the single argument [Arg],
// in its own process group, reading the group ids to watch from a pipe ("+123" to watch
// group 123, "-123" to stop). The write end of the pipe belongs to reins alone, so the
// watchdog reads end-of-file exactly when reins is gone, however it died; it then sends
// SIGTERM to every group still watched, SIGKILL to what is left after a grace period, and
// exits. A parent-death signal alone would not do: it reaches only the direct child (the
// shell), while the commands the shell started live on in its group.
//
// Reins is deliberately not a child subreaper: orphans re-parented to it would have to be
// reaped with wait4(-1), which races os/exec's own Wait for the children it started.
package procguard

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Arg is the argument that makes the reins executable run [Serve] instead of the CLI.
const Arg = "__reins-procguard"

// grace is how long the watched groups have between SIGTERM and SIGKILL.
const grace = 2 * time.Second

// Guard starts the watchdog on the first group it is given; a session that runs no command
// starts no process.
type Guard struct {
	exe func() (string, error)

	mu      sync.Mutex
	w       *os.File
	cmd     *exec.Cmd
	err     error
	started bool
}

// New returns a Guard that runs exe() with [Arg] as its watchdog.
func New(exe func() (string, error)) *Guard { return &Guard{exe: exe} }

// Watch asks the watchdog to end process group pgid when this process dies. An error means
// the group is not guarded; the command still runs.
func (g *Guard) Watch(pgid int) error { return g.send('+', pgid) }

// Unwatch tells the watchdog that group pgid ended, so that a later group given the same id
// is never hit.
func (g *Guard) Unwatch(pgid int) error {
	g.mu.Lock()
	started := g.started
	g.mu.Unlock()
	if !started {
		return nil
	}
	return g.send('-', pgid)
}

func (g *Guard) send(op byte, pgid int) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.started {
		g.started = true
		g.err = g.start()
	}
	if g.err != nil {
		return g.err
	}
	if _, err := fmt.Fprintf(g.w, "%c%d\n", op, pgid); err != nil {
		return fmt.Errorf("process guard: %w", err)
	}
	return nil
}

func (g *Guard) start() error {
	exe, err := g.exe()
	if err != nil {
		return fmt.Errorf("process guard: %w", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("process guard: %w", err)
	}
	cmd := exec.Command(exe, Arg)
	cmd.Stdin = r
	// Its own group: the terminal's Ctrl-C and the groups it kills do not reach it.
	ownGroup(cmd)
	err = cmd.Start()
	r.Close()
	if err != nil {
		w.Close()
		return fmt.Errorf("process guard: starting %s: %w", exe, err)
	}
	g.w, g.cmd = w, cmd
	return nil
}

// Close ends the watchdog after it has ended whatever groups are still watched (normally
// none: the shell ends its own groups first) and waits for it.
func (g *Guard) Close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.w == nil {
		return nil
	}
	g.w.Close()
	g.w = nil
	err := g.cmd.Wait()
	g.err = fmt.Errorf("process guard: closed")
	return err
}

// Serve is the watchdog: it reads commands from r until end-of-file, then ends every group
// still watched. It returns the process exit code.
func Serve(r io.Reader) int {
	watched := map[int]bool{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if len(line) < 2 {
			continue
		}
		pgid, err := strconv.Atoi(line[1:])
		if err != nil || pgid <= 1 {
			continue
		}
		switch line[0] {
		case '+':
			watched[pgid] = true
		case '-':
			delete(watched, pgid)
		}
	}
	KillGroups(watched)
	return 0
}
