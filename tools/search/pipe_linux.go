package search

import (
	"os"

	"golang.org/x/sys/unix"
)

// rgPipeSize is the capacity asked for the pipe rg's content output goes through: room for
// what a parallel rg writes while the reader naps (see napReader), so that rg never waits.
// 1 MiB is the largest an unprivileged process may ask for by default
// (/proc/sys/fs/pipe-max-size).
const rgPipeSize = 1 << 20

// rgPipe makes the pipe for rg's content output and reports whether it holds rgPipeSize
// bytes. The read end blocks, rather than going through the runtime's poller as an
// os.Pipe does: the poller hears of every write to the pipe, even while no one reads it,
// and a parallel rg writes once for every file.
func rgPipe() (r, w *os.File, large bool, err error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return nil, nil, false, os.NewSyscallError("pipe2", err)
	}
	_, sizeErr := unix.FcntlInt(uintptr(p[0]), unix.F_SETPIPE_SZ, rgPipeSize)
	return os.NewFile(uintptr(p[0]), "|0"), os.NewFile(uintptr(p[1]), "|1"), sizeErr == nil, nil
}
