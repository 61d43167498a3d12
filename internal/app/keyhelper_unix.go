//go:build unix

package app

import (
	"os/exec"
	"syscall"
)

// setKeyHelperGroup starts an apiKeyHelper in a process group of its own, so that its time
// limit ends whatever it started too.
func setKeyHelperGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
