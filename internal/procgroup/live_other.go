//go:build unix && !linux

package procgroup

import "syscall"

// HasLiveMember reports whether process group pgid has a member. Without /proc, zombies count
// as members: a group is at worst signalled once more.
func HasLiveMember(pgid int) bool {
	return syscall.Kill(-pgid, 0) == nil
}

// Alive reports whether process pid exists. Without /proc a zombie counts as alive; it is
// reaped by its parent (or by launchd once the parent is gone) within moments.
func Alive(pid int) bool {
	return syscall.Kill(pid, 0) == nil
}
