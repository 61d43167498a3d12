//go:build unix

package checkpoint

import (
	"os"
	"syscall"
)

// openNoFollow opens path for reading, refusing a symlink (O_NOFOLLOW) and never waiting on a
// FIFO (O_NONBLOCK).
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}
