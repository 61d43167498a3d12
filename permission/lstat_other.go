//go:build !unix && !windows

package permission

import (
	"io/fs"
	"os"
)

func lstatMode(name string) (fs.FileMode, error) {
	fi, err := os.Lstat(name)
	if err != nil {
		return 0, err
	}
	return fi.Mode().Type(), nil
}

// lstatFile has no link count here: a zero count is "not known", which the write check never
// takes for one link.
func lstatFile(name string) (fileStat, error) {
	m, err := lstatMode(name)
	return fileStat{mode: m}, err
}
