//go:build !unix

package audit

// lock is only the process's own lock (Log.mu) where flock is not available: two processes
// appending at once could fork the chain, which verify then reports.
func (l *Log) lock() (unlock func(), err error) { return func() {}, nil }

func readLock(path string) (unlock func(), err error) { return func() {}, nil }
