//go:build unix

package checkpoint

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// walkers is how many folders a scan reads at once: a scan mostly waits on the kernel.
const walkers = 8

// walk calls fn for every non-folder below root (root itself when it is not a folder), with
// its fingerprint, never following a symlink and never entering a .git folder. A root that
// does not exist is nothing to walk. Each folder is opened once and its entries are looked at
// relative to it (fstatat), so the kernel does not resolve every full path again; folders are
// read by up to walkers goroutines, so fn must be safe for concurrent use.
func walk(root string, fn func(path string, fp fingerprint) error) error {
	var st unix.Stat_t
	err := unix.Lstat(root, &st)
	if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("checkpoint: %s: %w", root, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return fn(root, fingerprintOfStat(&st))
	}
	w := &walker{fn: fn, sem: make(chan struct{}, walkers)}
	w.dir(root)
	w.wg.Wait()
	return w.err
}

type walker struct {
	fn   func(path string, fp fingerprint) error
	sem  chan struct{}
	wg   sync.WaitGroup
	once sync.Once
	err  error
	stop atomic.Bool
}

func (w *walker) fail(err error) {
	w.once.Do(func() { w.err = err; w.stop.Store(true) })
}

// dir reads one folder: its files go to fn, its folders to another goroutine when one is free
// and to this one otherwise. A folder that vanished or became a link meanwhile is skipped.
func (w *walker) dir(dir string) {
	if w.stop.Load() {
		return
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		if !errors.Is(err, unix.ENOENT) && !errors.Is(err, unix.ENOTDIR) && !errors.Is(err, unix.ELOOP) {
			w.fail(fmt.Errorf("checkpoint: %s: %w", dir, err))
		}
		return
	}
	f := os.NewFile(uintptr(fd), dir)
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		w.fail(fmt.Errorf("checkpoint: %s: %w", dir, err))
		return
	}
	for _, name := range names {
		path := filepath.Join(dir, name)
		var st unix.Stat_t
		if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			if !errors.Is(err, unix.ENOENT) {
				w.fail(fmt.Errorf("checkpoint: %s: %w", path, err))
				return
			}
			continue
		}
		if st.Mode&unix.S_IFMT == unix.S_IFDIR {
			if name != ".git" {
				w.sub(path)
			}
			continue
		}
		if err := w.fn(path, fingerprintOfStat(&st)); err != nil {
			w.fail(err)
			return
		}
	}
}

// sub reads a folder in another goroutine when one is free, else in this one.
func (w *walker) sub(path string) {
	select {
	case w.sem <- struct{}{}:
		w.wg.Go(func() {
			defer func() { <-w.sem }()
			w.dir(path)
		})
	default:
		w.dir(path)
	}
}
