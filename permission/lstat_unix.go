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
	return modeType(uint32(st.Mode)), nil
}
