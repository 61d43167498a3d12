//go:build unix && !linux

package permission

import (
	"io/fs"

	"golang.org/x/sys/unix"
)

// lstatMode is os.Lstat reduced to the type bits, without the FileInfo and the error value
// os.Lstat allocates: a decision makes a dozen of these calls.
func lstatMode(name string) (fs.FileMode, error) {
	s, err := lstatFile(name)
	return s.mode, err
}

// lstatFile is lstatMode with the file's identity and link count.
func lstatFile(name string) (fileStat, error) {
	var st unix.Stat_t
	for {
		err := unix.Lstat(name, &st)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fileStat{}, err
		}
		break
	}
	return fileStat{mode: modeType(uint32(st.Mode)), links: uint64(st.Nlink), dev: uint64(st.Dev), ino: uint64(st.Ino)}, nil
}
