//go:build linux && (amd64 || arm64)

package permission

import (
	"io/fs"
	"strings"
	"syscall"
	"unsafe"
)

// pathBufSize bounds the paths passed to the kernel from a buffer on the stack; longer ones
// take syscall's allocating conversion.
const pathBufSize = 256

// cPath returns name as a NUL-terminated string for the kernel, in buf when it fits.
func cPath(buf *[pathBufSize]byte, name string) (*byte, error) {
	if strings.IndexByte(name, 0) >= 0 {
		return nil, syscall.EINVAL
	}
	if len(name) >= len(buf) {
		return syscall.BytePtrFromString(name)
	}
	copy(buf[:], name)
	buf[len(name)] = 0
	return &buf[0], nil
}

// lstatMode is os.Lstat reduced to the type bits, without the FileInfo, the error value and
// the path copy os.Lstat allocates: a decision makes a dozen of these calls.
func lstatMode(name string) (fs.FileMode, error) {
	s, err := lstatFileAt(atFDCWD, name)
	return s.mode, err
}

// lstatFile is lstatMode with the file's identity and link count.
func lstatFile(name string) (fileStat, error) { return lstatFileAt(atFDCWD, name) }

// lstatFileAt is lstatFile of name relative to the directory open as dirfd.
func lstatFileAt(dirfd int, name string) (fileStat, error) {
	var buf [pathBufSize]byte
	p, err := cPath(&buf, name)
	if err != nil {
		return fileStat{}, err
	}
	var st syscall.Stat_t
	for {
		_, _, errno := syscall.Syscall6(sysFstatat, uintptr(dirfd), uintptr(unsafe.Pointer(p)),
			uintptr(unsafe.Pointer(&st)), uintptr(atSymlinkNofollow), 0, 0)
		if errno == syscall.EINTR {
			continue
		}
		if errno != 0 {
			return fileStat{}, errno
		}
		break
	}
	return fileStat{mode: modeType(st.Mode), links: uint64(st.Nlink), dev: uint64(st.Dev), ino: st.Ino}, nil
}

const atSymlinkNofollow = 0x100
