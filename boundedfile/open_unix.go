//go:build unix

package boundedfile

import (
	"errors"
	"os"
	"syscall"
)

// openNonBlocking opens path for reading with O_NONBLOCK, so that a FIFO nobody writes to
// cannot hang the open, and O_NOCTTY, so that a terminal cannot become the controlling one.
func openNonBlocking(path string) (*os.File, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC|syscall.O_NOCTTY, 0)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return os.NewFile(uintptr(fd), path), nil
	}
}
