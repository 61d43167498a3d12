//go:build unix

package hooks

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// fakeGuard records what a runner tells its GroupGuard.
type fakeGuard struct {
	mu  sync.Mutex
	ops []string
}

func (g *fakeGuard) Watch(pgid int) error   { return g.record("+", pgid) }
func (g *fakeGuard) Unwatch(pgid int) error { return g.record("-", pgid) }

func (g *fakeGuard) record(op string, pgid int) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.ops = append(g.ops, op+strconv.Itoa(pgid))
	return nil
}

func (g *fakeGuard) seen() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.ops)
}

// processGone reports whether pid no longer runs: no such process, or a zombie nobody reaped
// (a container's first process may not reap orphans).
func processGone(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return true
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) != nil
	}
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && (b[i+2] == 'Z' || b[i+2] == 'X')
}

// waitGone fails the test when pid still runs after a generous deadline (a guard against
// hanging, not a measure of time).
func waitGone(t *testing.T, pid int, what string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !processGone(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("%s (pid %d) is still running", what, pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func readPid(t *testing.T, p string) int {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	return pid
}

// TestHookBackgroundChildEndsWithTheSession: a hook that starts `sleep &` with its output
// redirected exits at once; the sleep goes on while the session does (as a Bash command's
// `server &` does), its group watched by the guard, and ends at Close, which also stops
// watching. A group that left nothing running is unwatched as soon as the hook exits; a hook
// that finishes after Close has its leftovers ended at once.
func TestHookBackgroundChildEndsWithTheSession(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	leaver := script(t, dir, "leaver.sh", fmt.Sprintf("sleep 1000 >/dev/null 2>&1 &\necho $! > %s\n", pidFile))
	quiet := script(t, dir, "quiet.sh", "exit 0\n")
	guard := &fakeGuard{}

	r := newRunner(t, dir, Hook{Event: PreToolUse, Command: quiet})
	r.Groups = guard
	r.PreToolUse(context.Background(), Common{Cwd: dir}, bashCall)
	if ops := guard.seen(); len(ops) != 2 || ops[0][0] != '+' || ops[1] != "-"+ops[0][1:] {
		t.Errorf("guard told %q for a hook that left nothing, want a watch and its unwatch", ops)
	}

	guard = &fakeGuard{}
	r = newRunner(t, dir, Hook{Event: PreToolUse, Command: leaver})
	r.Groups = guard
	res := r.PreToolUse(context.Background(), Common{Cwd: dir}, bashCall)
	if len(res.Runs) != 1 || res.Runs[0].Outcome != OutcomeSuccess {
		t.Fatalf("runs %+v", res.Runs)
	}
	child := readPid(t, pidFile)
	group, err := syscall.Getpgid(child)
	if err != nil {
		t.Fatal(err)
	}
	if processGone(child) {
		t.Fatal("the hook's background child ended with the hook; it should live as long as the session")
	}
	if want := []string{fmt.Sprint("+", group)}; !slices.Equal(guard.seen(), want) {
		t.Errorf("guard told %q while the child runs, want %q", guard.seen(), want)
	}
	r.Close()
	waitGone(t, child, "the hook's background child after Close")
	if want := []string{fmt.Sprint("+", group), fmt.Sprint("-", group)}; !slices.Equal(guard.seen(), want) {
		t.Errorf("guard told %q after Close, want %q", guard.seen(), want)
	}

	// After Close: SessionEnd hooks may still run, and take what they start with them.
	r.PreToolUse(context.Background(), Common{Cwd: dir}, bashCall)
	waitGone(t, readPid(t, pidFile), "the background child of a hook run after Close")
}
