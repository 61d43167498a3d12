package sandbox

import (
	"os"
	"os/exec"
	"syscall"
)

// sysID is a file's inode, device and change time, from its Lstat.
func sysID(fi os.FileInfo) (ino, dev uint64, ctime int64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ino, uint64(st.Dev), st.Ctimespec.Sec*1e9 + st.Ctimespec.Nsec
	}
	return 0, 0, 0
}

// groupAlive reports whether the process group pgid has a member.
func groupAlive(pgid int) bool { return pgid > 0 && syscall.Kill(-pgid, 0) != syscall.ESRCH }

// ownGroup reports whether cmd was started in a process group of its own.
func ownGroup(cmd *exec.Cmd) bool { return cmd.SysProcAttr != nil && cmd.SysProcAttr.Setpgid }
