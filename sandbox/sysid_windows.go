package sandbox

import (
	"os"
	"os/exec"
)

// Windows has no backend (internal/app lists one that never works), so no command runs
// confined and nothing below is reached for one; the package builds for the library's sake.

// sysID: an Lstat on Windows carries no file index; size and times tell a change.
func sysID(os.FileInfo) (ino, dev uint64, ctime int64) { return 0, 0, 0 }

// groupAlive: there are no process groups to outlive a command.
func groupAlive(int) bool { return false }

// ownGroup: commands get no process group of their own here.
func ownGroup(*exec.Cmd) bool { return false }
