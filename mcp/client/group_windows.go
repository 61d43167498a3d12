package client

import (
	"errors"
	"os/exec"
	"syscall"

	"github.com/reinsdev/reins/internal/procgroup"
)

// ownGroup starts the server in a console process group of its own, so that a Ctrl-C meant
// for reins is not the server's too; its "group" for ending it is its process tree
// (procgroup's Windows meaning).
func ownGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= syscall.CREATE_NEW_PROCESS_GROUP
}

// errTreeGone is signalGroup's answer when nothing of the server's tree runs (Unix's ESRCH).
var errTreeGone = errors.New("no process of the server's tree is running")

// signalGroup is the shutdown's signal on Windows, which has none for another program: 0 asks
// whether any of the server's tree is left, SIGKILL terminates the tree, and SIGTERM does
// nothing (the closed input was the gentle request; SIGKILL follows after termGrace).
func signalGroup(cmd *exec.Cmd, sig syscall.Signal) error {
	if cmd == nil || cmd.Process == nil {
		return nil
	}
	pid := cmd.Process.Pid
	if !procgroup.HasLiveMember(pid) {
		return errTreeGone
	}
	if sig == syscall.SIGKILL {
		procgroup.Kill(pid, 0)
	}
	return nil
}

// killGroup ends a stdio server's process tree.
func killGroup(cmd *exec.Cmd) {
	_ = signalGroup(cmd, syscall.SIGKILL)
}
