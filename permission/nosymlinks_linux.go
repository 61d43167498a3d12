//go:build linux && (amd64 || arm64)

package permission

import (
	"sync/atomic"
	"syscall"
	"unsafe"
)

// openat2 and its arguments (linux/openat2.h); the system call number is the same on amd64
// and arm64, as is O_PATH.
const (
	sysOpenat2         = 437
	oPath              = 0x200000
	resolveNoSymlinks  = 0x04
	openHowSize        = 24
	maxOpenat2PathSize = 4096
)

type openHow struct {
	flags, mode, resolve uint64
}

// openat2Off is set once the kernel (or a seccomp filter) has refused openat2 itself: the
// walk is used from then on.
var openat2Off atomic.Bool

// atFDCWD is AT_FDCWD (-100), a variable so that it converts to uintptr.
var atFDCWD = -100

// openDirWithoutSymlinks opens d when the kernel resolves it without meeting a symlink, and
// returns the O_PATH descriptor, or -1 for "not proven" (the caller then walks the elements
// itself). openat2(d, O_PATH|O_DIRECTORY, RESOLVE_NO_SYMLINKS) succeeds only when every
// element of d exists, every one is a directory and none is a symlink (a final symlink is
// ELOOP too, as O_NOFOLLOW is not given): what an Lstat of each element would show, in two
// system calls (the open and the close) instead of one per element. The names in d can be
// looked up through the descriptor (lstatFileAt) without the kernel walking d's path again;
// the caller closes it (closeDir).
func openDirWithoutSymlinks(d string) int {
	if openat2Off.Load() || len(d) >= maxOpenat2PathSize {
		return -1
	}
	var buf [pathBufSize]byte
	p, err := cPath(&buf, d)
	if err != nil {
		return -1
	}
	how := openHow{flags: oPath | syscall.O_DIRECTORY | syscall.O_CLOEXEC, resolve: resolveNoSymlinks}
	fd, _, errno := syscall.Syscall6(sysOpenat2, uintptr(atFDCWD), uintptr(unsafe.Pointer(p)),
		uintptr(unsafe.Pointer(&how)), openHowSize, 0, 0)
	if errno != 0 {
		if errno == syscall.ENOSYS || errno == syscall.EPERM {
			openat2Off.Store(true)
		}
		return -1
	}
	return int(fd)
}

func closeDir(fd int) { syscall.Close(fd) }
