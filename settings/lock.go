package settings

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/reinsdev/reins/filelock"
)

// lockTimeout bounds the wait for another Reins process's read-modify-write of the same file.
// Such a write takes milliseconds; a lock held this long belongs to a stuck process.
var lockTimeout = 30 * time.Second

// lockFileOf is the lock file beside the settings file at real (symlinks resolved).
func lockFileOf(real string) string {
	return filepath.Join(filepath.Dir(real), "."+filepath.Base(real)+".lock")
}

// withFileLock runs fn while holding an exclusive lock (package filelock) on a hidden lock
// file beside path (".settings.json.lock"), so that concurrent read-modify-writes of the same
// file from several processes or goroutines run one after the other and none loses another's
// change. The lock is beside the file, after symlinks, rather than on it, because the write
// replaces the file by renaming and a lock on the old inode would not exclude a writer of the
// new one.
func withFileLock(path string, dirPerm os.FileMode, fn func() error) error {
	real, err := resolvePath(path)
	if err != nil {
		return fmt.Errorf("locking %s: %w", path, err)
	}
	dir := filepath.Dir(real)
	if err := os.MkdirAll(dir, dirPerm); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	lockPath := lockFileOf(real)
	f, err := os.OpenFile(lockPath, os.O_RDWR|os.O_CREATE|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return fmt.Errorf("locking %s: %w", path, err)
	}
	defer f.Close() // closing releases the lock
	deadline := time.Now().Add(lockTimeout)
	for delay := time.Millisecond; ; delay = min(2*delay, 50*time.Millisecond) {
		err := filelock.TryLock(f)
		if err == nil {
			break
		}
		if !errors.Is(err, filelock.ErrLocked) {
			return fmt.Errorf("locking %s: %w", path, err)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s is being changed by another process (lock %s held for over %s)", path, lockPath, lockTimeout)
		}
		time.Sleep(delay)
	}
	return fn()
}
