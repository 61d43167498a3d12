package filelock

import (
	"fmt"
	"os"

	"golang.org/x/sys/windows"
)

func tryLock(f *os.File) error {
	// The byte locked is at offset 2^62: beyond any file, so that reads and writes of the
	// content are never refused.
	ol := windows.Overlapped{Offset: 0, OffsetHigh: 0x40000000}
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
	switch {
	case err == nil:
		return nil
	case err == windows.ERROR_LOCK_VIOLATION || err == windows.ERROR_IO_PENDING:
		return fmt.Errorf("%s: %w", f.Name(), ErrLocked)
	default:
		return fmt.Errorf("locking %s: %w", f.Name(), err)
	}
}
