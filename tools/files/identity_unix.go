//go:build unix

package files

import (
	"errors"
	"os"
	"syscall"
)

// identity is what the file system says of a file beyond os.FileInfo.
type identity struct {
	dev, ino, links uint64
	uid, gid        int
}

// fileIdentity reads the device, inode, link count and owner of the file fi describes.
func fileIdentity(_ string, fi os.FileInfo) (identity, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return identity{}, false
	}
	return identity{dev: uint64(st.Dev), ino: uint64(st.Ino), links: uint64(st.Nlink), uid: int(st.Uid), gid: int(st.Gid)}, true
}

// processGone reports whether no process has the id pid.
func processGone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
