// Package filelock takes the advisory, process-lifetime locks Reins uses to keep two of its
// processes from writing the same file at once: the settings files' read-modify-write, a
// session's single writer, the Bash tool's output folders. A lock is held through an open
// file and ends when the file is closed or the process dies, however it died.
//
// On Unix it is flock(2). On Windows it is LockFileEx on one byte far past any real content
// (at 2^62 bytes), so that the lock — mandatory there — never blocks another
// process reading or appending to the file itself.
//
// It imports only the standard library: the pure core (settings) takes its locks here.
package filelock

import (
	"errors"
	"os"
)

// ErrLocked is returned by [TryLock] when another open file holds the lock.
var ErrLocked = errors.New("locked by another process")

// TryLock takes f's exclusive lock without waiting. It returns an error wrapping [ErrLocked]
// when another open file description holds it.
func TryLock(f *os.File) error { return tryLock(f) }
