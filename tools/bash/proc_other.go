//go:build !linux

package bash

import "syscall"

// groupHasLiveMember reports whether process group pgid has a member. Without /proc zombies
// count as members.
func groupHasLiveMember(pgid int) bool {
	return syscall.Kill(-pgid, 0) == nil
}
