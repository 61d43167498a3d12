//go:build unix

package procgroup

import (
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// A group whose members ignore SIGTERM is killed after the grace, and then counts as gone
// although its zombie is not reaped yet.
func TestKillEndsAGroupThatIgnoresSIGTERM(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-c", `trap '' TERM; sleep 1000 & wait`)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pgid := cmd.Process.Pid
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	if !HasLiveMember(pgid) {
		t.Fatal("a started group has no live member")
	}
	Kill(pgid, 100*time.Millisecond)
	if HasLiveMember(pgid) {
		t.Error("the group still has a live member after Kill")
	}
	select {
	case <-done:
	case <-time.After(time.Minute): // a failure guard, not a timing assertion
		t.Fatal("the shell did not end")
	}
}

func TestNoSuchGroup(t *testing.T) {
	if HasLiveMember(1 << 30) {
		t.Error("a group that does not exist has a live member")
	}
}
