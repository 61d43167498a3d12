//go:build !linux

package sandbox

import (
	"errors"
	"os"
	"time"
)

func fsClockNow() int64 { return time.Now().Add(-20 * time.Millisecond).UnixNano() }

func readNoFollow(p string) ([]byte, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	return os.ReadFile(p)
}

func moveNoFollow(src, dst string) error { return os.Rename(src, dst) }

func recreate(p string, e *entry) error {
	switch {
	case e.id.mode.IsDir():
		return os.Mkdir(p, e.id.mode.Perm())
	case e.id.mode&os.ModeSymlink != 0:
		return os.Symlink(e.link, p)
	}
	return os.WriteFile(p, e.data, e.id.mode.Perm())
}
