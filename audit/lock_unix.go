//go:build unix

package audit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// lock takes the log's exclusive lock across processes: an flock on the lock file, which
// rotation never renames.
func (l *Log) lock() (unlock func(), err error) {
	f, err := openFile(lockPath(l.opts.Path), os.O_RDWR|os.O_CREATE)
	if err != nil {
		return nil, openErr("opening the log's lock", err)
	}
	return flock(f, syscall.LOCK_EX)
}

// readLock takes the shared lock, so that a reader sees no append half done (a line written
// but not yet the anchor). A log without a lock file has never been appended to.
func readLock(path string) (unlock func(), err error) {
	f, err := openFile(lockPath(path), os.O_RDONLY)
	if errors.Is(err, fs.ErrNotExist) {
		return func() {}, nil
	}
	if err != nil {
		return nil, openErr("opening the log's lock", err)
	}
	return flock(f, syscall.LOCK_SH)
}

func flock(f *os.File, how int) (unlock func(), err error) {
	if err := syscall.Flock(int(f.Fd()), how); err != nil {
		f.Close()
		return nil, fmt.Errorf("audit: locking the log: %w", err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
