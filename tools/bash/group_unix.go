//go:build unix

package bash

import (
	"os/exec"
	"syscall"
)

// ownGroup makes cmd lead a process group of its own, which ends as one.
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// termGroup asks the process group pgid to end (SIGTERM); what is left after the grace gets
// SIGKILL from procgroup.Kill.
func termGroup(pgid int) error { return syscall.Kill(-pgid, syscall.SIGTERM) }
