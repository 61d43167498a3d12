//go:build unix

package audit

import (
	"fmt"
	"os"
	"syscall"
)

// lock takes the log's exclusive lock across processes: an flock on the lock file, which
// rotation never renames.
func (l *Log) lock() (unlock func(), err error) {
	f, err := os.OpenFile(lockPath(l.opts.Path), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("audit: opening the log's lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("audit: locking the log: %w", err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
