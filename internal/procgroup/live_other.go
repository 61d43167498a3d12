//go:build unix && !linux

package procgroup

import "syscall"

// HasLiveMember reports whether process group pgid has a member. Without /proc, zombies count
// as members: a group is at worst signalled once more.
func HasLiveMember(pgid int) bool {
	return syscall.Kill(-pgid, 0) == nil
}
