//go:build !linux

package search

import (
	"os"
	"time"
)

// modTime returns a file's modification time.
func modTime(path string) (time.Time, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return time.Time{}, false
	}
	return fi.ModTime(), true
}
