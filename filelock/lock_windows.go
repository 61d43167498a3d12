package filelock

import (
	"fmt"
	"os"
	"syscall"
	"unsafe"
)

var procLockFileEx = syscall.NewLazyDLL("kernel32.dll").NewProc("LockFileEx")

const (
	lockfileFailImmediately = 0x1
	lockfileExclusiveLock   = 0x2
	errorLockViolation      = syscall.Errno(33)
	errorIOPending          = syscall.Errno(997)
)

func tryLock(f *os.File) error {
	// The byte locked is at offset 2^62: beyond any file, so that reads and writes of the
	// content are never refused.
	ol := syscall.Overlapped{Offset: 0, OffsetHigh: 0x40000000}
	r, _, err := procLockFileEx.Call(f.Fd(), lockfileExclusiveLock|lockfileFailImmediately, 0, 1, 0, uintptr(unsafe.Pointer(&ol)))
	switch {
	case r != 0:
		return nil
	case err == errorLockViolation || err == errorIOPending:
		return fmt.Errorf("%s: %w", f.Name(), ErrLocked)
	default:
		return fmt.Errorf("locking %s: %w", f.Name(), err)
	}
}
