// Package boundedfiletest makes, for real, the files a bounded read must refuse, so that every
// package that reads files through package boundedfile tests its callers on the same set.
package boundedfiletest

import (
	"fmt"
	"os"
	"testing"
)

// File is one kind of file that must be refused.
type File struct {
	Name string
	// Make creates it at path (whose folder exists); a system that cannot make it does not
	// list it (Hostile), so Make fails the test rather than skipping it.
	Make func(t testing.TB, path string)
	// Want is in the error's text.
	Want string
}

// Hostile returns the files no bounded read may read on this system: a folder and a sparse
// regular file one byte over maxBytes, the limit the reader under test is given, everywhere;
// on Unix also a FIFO nobody writes to, symlinks to /dev/zero and /dev/urandom and a Unix
// socket (hostile_unix.go says why Windows has none of them).
func Hostile(maxBytes int64) []File {
	return append([]File{
		{"folder", func(t testing.TB, p string) {
			if err := os.Mkdir(p, 0o700); err != nil {
				t.Fatal(err)
			}
		}, "is a folder, not a regular file"},
		{"sparse file over the cap", func(t testing.TB, p string) {
			Sparse(t, p, maxBytes+1)
		}, fmt.Sprintf("is too large (%d bytes;", maxBytes+1)},
	}, systemHostile()...)
}

// Sparse makes path a regular file of size bytes that takes no room on disk.
func Sparse(t testing.TB, path string, size int64) {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
}
