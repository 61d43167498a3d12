//go:build unix

package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reinsdev/reins/llm/llmtest"
)

// hookLeavingChild configures a PreToolUse hook for Bash that starts `sleep 300` in the
// background, its output redirected so the hook exits at once, and returns the file the
// child's pid is written to.
func hookLeavingChild(e *e2e) string {
	pidFile := filepath.Join(e.dir, "hook-child.pid")
	hook := e.hookScript("leave-child.sh", fmt.Sprintf("sleep 300 >/dev/null 2>&1 &\necho $! > %s\n", pidFile))
	e.userSettings(hooksDoc("PreToolUse", "Bash", hook, 0))
	return pidFile
}

// waitPidFile waits for a pid file the run writes and returns the pid; the deadline only
// guards against a hang.
func waitPidFile(t *testing.T, p string, out func() string) int {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		b, err := os.ReadFile(p)
		if pid, err2 := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && err2 == nil {
			t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s was never written:\n%s", p, out())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func waitProcessGone(t *testing.T, pid int, what string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !processGone(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("%s (pid %d) outlived reins", what, pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestHookChildEndsWithRun: what a hook leaves running ends when the run ends.
func TestHookChildEndsWithRun(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs /proc to tell a finished process from a live one")
	}
	e := newE2E(t, reinsBinary(t))
	pidFile := hookLeavingChild(e)
	srv := llmtest.NewAnthropicServer(t, llmtest.UseTools(llmtest.Call("Bash", `{"command":"echo hi"}`)), llmtest.Say("done"))
	e.anthropic(srv).run("-p", "--allowedTools", "Bash", "--", "go")
	e.wantCode(0)
	waitProcessGone(t, waitPidFile(t, pidFile, func() string { return e.stderr }), "the hook's background child")
}

// TestKill9EndsHookChildren: after kill -9 of reins, the process watchdog ends what a hook
// left running, as it ends the Bash tool's commands.
func TestKill9EndsHookChildren(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs /proc to tell a finished process from a live one")
	}
	e := newE2E(t, reinsBinary(t))
	pidFile := hookLeavingChild(e)
	marker := "41.76"
	cmd, out := startSleeping(t, e, marker)
	child := waitPidFile(t, pidFile, out)
	// The Bash command runs after the hook: reins is mid-turn when it dies.
	waitForProc(t, 60*time.Second, out, "sleep", marker)
	t.Cleanup(func() {
		for _, p := range findProcs("sleep", marker) {
			syscall.Kill(p, syscall.SIGKILL)
		}
	})
	if processGone(child) {
		t.Fatal("the hook's background child ended before reins did; it should live as long as the session")
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	waitProcessGone(t, child, "the hook's background child")
}
