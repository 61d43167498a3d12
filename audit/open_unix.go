//go:build unix

package audit

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// openFile opens one of the log's own files — the current file, a rotated one, the anchor,
// the lock — as flag says (creating it 0600 with O_CREATE). Reins makes them, but in a folder
// the settings name, where someone else may have put something first: so the open never
// follows a symlink at the name, never blocks (O_NONBLOCK: a FIFO cannot hang it), and the
// opened descriptor — not the path, so nothing can be swapped in between — must be a regular
// file; otherwise it is a *NotRegularError naming the path.
func openFile(path string, flag int) (*os.File, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC|syscall.O_NOCTTY, 0o600)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		// A symlink is ELOOP, a FIFO without a reader ENXIO for a write, a socket ENXIO:
		// say what stands there rather than how the open failed.
		if info, lerr := os.Lstat(path); lerr == nil && !info.Mode().IsRegular() {
			return nil, &NotRegularError{Path: path, Mode: info.Mode()}
		}
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, &NotRegularError{Path: path, Mode: info.Mode()}
	}
	return f, nil
}
