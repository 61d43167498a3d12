//go:build !linux

package bash

import (
	"os/exec"
	"syscall"
)

// groupHasLiveMember reports whether process group pgid has a member. Without /proc zombies
// count as members.
func groupHasLiveMember(pgid int) bool {
	return syscall.Kill(-pgid, 0) == nil
}

// startGuarded starts cmd; only Linux has a parent-death signal.
func startGuarded(cmd *exec.Cmd) error { return cmd.Start() }
