//go:build unix && !(linux && (amd64 || arm64))

package permission

import (
	"io/fs"
	"syscall"
)

// lstatMode is os.Lstat reduced to the type bits, without the FileInfo and the error value
// os.Lstat allocates: a decision makes a dozen of these calls.
func lstatMode(name string) (fs.FileMode, error) {
	var st syscall.Stat_t
	for {
		err := syscall.Lstat(name, &st)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return 0, err
		}
		break
	}
	switch uint32(st.Mode) & syscall.S_IFMT {
	case syscall.S_IFDIR:
		return fs.ModeDir, nil
	case syscall.S_IFLNK:
		return fs.ModeSymlink, nil
	case syscall.S_IFREG:
		return 0, nil
	case syscall.S_IFIFO:
		return fs.ModeNamedPipe, nil
	case syscall.S_IFSOCK:
		return fs.ModeSocket, nil
	case syscall.S_IFBLK:
		return fs.ModeDevice, nil
	case syscall.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice, nil
	}
	return fs.ModeIrregular, nil
}
