package permission

import (
	"io/fs"

	"golang.org/x/sys/unix"
)

// lstatMode is os.Lstat reduced to the type bits, without the FileInfo, the error value and
// the path copy os.Lstat allocates: a decision makes a dozen of these calls.
func lstatMode(name string) (fs.FileMode, error) {
	s, err := lstatFileAt(unix.AT_FDCWD, name)
	return s.mode, err
}

// lstatFile is lstatMode with the file's identity and link count.
func lstatFile(name string) (fileStat, error) { return lstatFileAt(unix.AT_FDCWD, name) }

// lstatFileAt is lstatFile of name relative to the directory open as dirfd.
func lstatFileAt(dirfd int, name string) (fileStat, error) {
	var st unix.Stat_t
	for {
		err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fileStat{}, err
		}
		break
	}
	return fileStat{mode: modeType(st.Mode), links: uint64(st.Nlink), dev: uint64(st.Dev), ino: st.Ino}, nil
}
