//go:build unix

package hooks

import (
	"os/exec"
	"syscall"
)

// setProcessGroup starts the hook in a process group of its own and makes cancellation kill the
// whole group.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
