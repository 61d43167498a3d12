package client

import (
	"os/exec"
	"syscall"

	"github.com/reinsdev/reins/internal/procgroup"
)

func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// killGroup ends a stdio server's process tree (procgroup's Windows meaning of a group).
func killGroup(cmd *exec.Cmd) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	procgroup.Kill(cmd.Process.Pid, 0)
}
