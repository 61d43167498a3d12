//go:build !linux

package permission

import (
	"io/fs"
	"os"
)

// readDirInodes is the Linux one the long way: an Lstat of each entry for its inode.
func readDirInodes(dir string, enter func(dir fileStat) bool, fn func(name string, ino uint64, typ fs.FileMode) bool) error {
	st, err := lstatFile(dir)
	if err != nil {
		return err
	}
	if !st.mode.IsDir() || st.links == 0 {
		return &os.PathError{Op: "search", Path: dir, Err: os.ErrInvalid}
	}
	if !enter(st) {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		es, err := lstatFile(dir + sep + e.Name())
		if err != nil {
			continue
		}
		if !fn(e.Name(), es.ino, es.mode) {
			break
		}
	}
	return nil
}
