//go:build unix

package client

import (
	"os/exec"
	"syscall"
)

// ownGroup starts the server in a process group of its own, so that everything it starts
// (npx, a shell's children) gets its signals and dies with it.
func ownGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// signalGroup sends sig to the process group cmd leads; 0 asks whether any of it is left
// (ESRCH when nothing is).
func signalGroup(cmd *exec.Cmd, sig syscall.Signal) error {
	if cmd == nil || cmd.Process == nil {
		return nil
	}
	return syscall.Kill(-cmd.Process.Pid, sig)
}

// killGroup kills a stdio server's whole process group.
func killGroup(cmd *exec.Cmd) {
	_ = signalGroup(cmd, syscall.SIGKILL)
}
