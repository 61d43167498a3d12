//go:build unix

package worktree

import (
	"os/exec"
	"syscall"
	"time"

	"github.com/reinsdev/reins/internal/procgroup"
)

// startGroup starts git in a process group of its own, which a timeout kills whole.
func startGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process != nil {
			procgroup.Kill(cmd.Process.Pid, time.Second)
		}
		return nil
	}
}

// endGroup ends what git left running in its group.
func endGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		procgroup.Kill(cmd.Process.Pid, 100*time.Millisecond)
	}
}
