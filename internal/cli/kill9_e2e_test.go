//go:build unix

package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/session"
)

// processGone reports whether pid no longer runs: no such process, or a zombie nobody reaped
// (a container's first process may not reap orphans).
func processGone(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return true
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && (b[i+2] == 'Z' || b[i+2] == 'X')
}

// TestKill9LeavesNoChild: after kill -9 of reins, neither the Bash tool's shell nor a process
// that shell started survives — in the sandbox, as by default, and outside it. The processes are
// found by a marker in their command lines: inside bubblewrap's process namespace the command
// cannot know its host process ids.
func TestKill9LeavesNoChild(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the parent-death signal and /proc are Linux's")
	}
	for _, tc := range []struct{ name, marker, userSettings string }{
		{"sandboxed", "300.0417", ""},
		{"sandbox off", "300.0418", `{"sandbox": {"enabled": false}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proj, home := e2eProject(t)
			if tc.userSettings != "" {
				writeTestFile(t, filepath.Join(home, ".reins", "settings.json"), tc.userSettings)
			}
			cmd := exec.Command(reinsBinary(t), "tool", "run", "Bash", "--allowedTools", "Bash", "--input",
				`{"command":"sleep `+tc.marker+` & sleep `+tc.marker+`"}`)
			cmd.Dir = proj
			cmd.Env = append(os.Environ(), "HOME="+home, "REINS_CONFIG_DIR=", "CLAUDE_CONFIG_DIR=", "REINS_MANAGED_DIR="+filepath.Join(home, "managed"))
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// reins itself has the marker in its arguments; the two sleeps, the shell (and
			// bubblewrap) have it too.
			others := func() []int {
				var out []int
				for _, p := range findProcs(tc.marker) {
					if p != cmd.Process.Pid {
						out = append(out, p)
					}
				}
				return out
			}
			var pids []int
			deadline := time.Now().Add(60 * time.Second)
			for sleeps := 0; sleeps < 2; {
				pids, sleeps = others(), len(findProcs("sleep", tc.marker))
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatalf("the command never started: %s", stderr.String())
				}
				time.Sleep(20 * time.Millisecond)
			}
			t.Cleanup(func() {
				for _, p := range others() {
					syscall.Kill(p, syscall.SIGKILL)
				}
			})
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()
			deadline = time.Now().Add(30 * time.Second)
			for _, p := range pids {
				for !processGone(p) {
					if time.Now().After(deadline) {
						t.Fatalf("process %d survived kill -9 of reins", p)
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
		})
	}
}

// TestKill9MidTurnLeavesSession: reins killed with SIGKILL while a tool runs leaves a session
// file that loads: the prompt and the model's tool call are in it (they were written before the
// tool started, though the turn was never flushed), and the missing result is filled in.
func TestKill9MidTurnLeavesSession(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the parent-death signal and /proc are Linux's")
	}
	e := newE2E(t, reinsBinary(t))
	marker := "41.75"
	cmd, out := startSleeping(t, e, marker)
	waitForProc(t, 60*time.Second, out, "sleep", marker)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	t.Cleanup(func() {
		for _, p := range findProcs("sleep", marker) {
			syscall.Kill(p, syscall.SIGKILL)
		}
	})
	tr := e.onlySession(t)
	if tr.Skipped != 0 {
		t.Errorf("%d unreadable lines", tr.Skipped)
	}
	if len(tr.Messages) != 3 || tr.Messages[0].Text() != "run it" {
		t.Fatalf("messages read back: %+v", tr.Messages)
	}
	uses := tr.Messages[1].ToolUses()
	if len(uses) != 1 || uses[0].Name != "Bash" {
		t.Errorf("the tool call is missing: %+v", tr.Messages[1])
	}
	if r := tr.Messages[2].Content; len(r) != 1 || r[0].Type != llm.BlockToolResult || r[0].Content[0].Text != session.LostResultMessage {
		t.Errorf("the missing result was not filled in: %+v", r)
	}
}
