package permission

import (
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// maxOpenat2PathSize is PATH_MAX: a longer path is never proven in one call.
const maxOpenat2PathSize = 4096

// openat2Off is set once the kernel (or a seccomp filter) has refused openat2 itself: the
// walk is used from then on.
var openat2Off atomic.Bool

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
	how := unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS}
	fd, err := unix.Openat2(unix.AT_FDCWD, d, &how)
	if err != nil {
		if err == unix.ENOSYS || err == unix.EPERM {
			openat2Off.Store(true)
		}
		return -1
	}
	return fd
}

func closeDir(fd int) { unix.Close(fd) }
