// Package boundedfiletest makes, for real, the files a bounded read must refuse, so that every
// package that reads files through package boundedfile tests its callers on the same set.
package boundedfiletest

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"
)

// File is one kind of file that must be refused.
type File struct {
	Name string
	// Make creates it at path (whose folder exists); it skips the test when the system
	// cannot make it.
	Make func(t testing.TB, path string)
	// Want is in the error's text.
	Want string
}

// Hostile returns the files no bounded read may read: a FIFO nobody writes to, symlinks to
// /dev/zero and /dev/urandom, a folder, a Unix socket, and a sparse regular file one byte over
// maxBytes, the limit the reader under test is given.
func Hostile(maxBytes int64) []File {
	return []File{
		{"FIFO", func(t testing.TB, p string) {
			if err := Mkfifo(p); err != nil {
				t.Skipf("cannot make a FIFO here: %v", err)
			}
		}, "is a FIFO, not a regular file"},
		{"symlink to /dev/zero", SymlinkTo("/dev/zero"), "is a character device, not a regular file"},
		{"symlink to /dev/urandom", SymlinkTo("/dev/urandom"), "is a character device, not a regular file"},
		{"folder", func(t testing.TB, p string) {
			if err := os.Mkdir(p, 0o700); err != nil {
				t.Fatal(err)
			}
		}, "is a folder, not a regular file"},
		{"Unix socket", func(t testing.TB, p string) {
			// A socket's path is limited to about 100 bytes: bind it in a short folder and
			// move it into place (rename moves any kind of file).
			dir, err := os.MkdirTemp("", "sock")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(dir) })
			l, err := net.Listen("unix", filepath.Join(dir, "s"))
			if err != nil {
				t.Skipf("cannot make a Unix socket here: %v", err)
			}
			t.Cleanup(func() { l.Close() })
			if err := os.Rename(filepath.Join(dir, "s"), p); err != nil {
				t.Skipf("cannot move a Unix socket to %s: %v", p, err)
			}
		}, "is a socket, not a regular file"},
		{"sparse file over the cap", func(t testing.TB, p string) {
			Sparse(t, p, maxBytes+1)
		}, fmt.Sprintf("is too large (%d bytes;", maxBytes+1)},
	}
}

// SymlinkTo makes path a symlink to target, skipping the test when target does not exist.
func SymlinkTo(target string) func(t testing.TB, path string) {
	return func(t testing.TB, p string) {
		if _, err := os.Stat(target); err != nil {
			t.Skipf("no %s: %v", target, err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
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
