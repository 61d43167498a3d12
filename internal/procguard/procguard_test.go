//go:build unix

package procguard

import (
	"io"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestServeKillsWatchedGroupsAtEOF: when the pipe closes (the parent died), the watched
// groups end, and an unwatched one is left alone.
func TestServeKillsWatchedGroupsAtEOF(t *testing.T) {
	start := func() *exec.Cmd {
		cmd := exec.Command("sleep", "300")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Skipf("cannot start sleep: %v", err)
		}
		return cmd
	}
	watched, unwatched, ended := start(), start(), start()
	t.Cleanup(func() {
		for _, c := range []*exec.Cmd{watched, unwatched, ended} {
			syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
		}
	})
	r, w := io.Pipe()
	done := make(chan int)
	go func() { done <- Serve(r) }()
	for _, line := range []string{
		"+" + strconv.Itoa(watched.Process.Pid),
		"+" + strconv.Itoa(ended.Process.Pid),
		"-" + strconv.Itoa(ended.Process.Pid),
		"+1", "garbage", "",
	} {
		io.WriteString(w, line+"\n")
	}
	w.Close()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Serve did not return after EOF")
	}
	waitErr := make(chan error, 1)
	go func() { waitErr <- watched.Wait() }()
	select {
	case err := <-waitErr:
		if err == nil {
			t.Error("the watched sleep exited normally")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the watched group is still running")
	}
	for _, c := range []*exec.Cmd{unwatched, ended} {
		if err := syscall.Kill(c.Process.Pid, 0); err != nil {
			t.Errorf("group %d was not watched but is gone: %v", c.Process.Pid, err)
		}
	}
}
