package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
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
// that shell started survives.
func TestKill9LeavesNoChild(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the parent-death signal and /proc are Linux's")
	}
	proj, home := e2eProject(t)
	cmd := exec.Command(reinsBinary(t), "tool", "run", "Bash", "--allowedTools", "Bash", "--input",
		`{"command":"sleep 300 & echo $! > child.pid; echo $$ > shell.pid; sleep 300"}`)
	cmd.Dir = proj
	cmd.Env = append(os.Environ(), "HOME="+home, "REINS_CONFIG_DIR=", "CLAUDE_CONFIG_DIR=", "REINS_MANAGED_DIR="+filepath.Join(home, "managed"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pids []int
	deadline := time.Now().Add(60 * time.Second)
	for len(pids) < 2 {
		pids = pids[:0]
		for _, name := range []string{"child.pid", "shell.pid"} {
			b, err := os.ReadFile(filepath.Join(proj, name))
			if n, err2 := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && err2 == nil {
				pids = append(pids, n)
			}
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the command never started: %s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Cleanup(func() {
		for _, p := range pids {
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
}
