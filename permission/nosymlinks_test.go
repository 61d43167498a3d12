package permission

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestLstatModeMatchesOS checks the lstat without a FileInfo against os.Lstat for each kind of
// file, a missing one, one under a file, a long path and a NUL byte.
func TestLstatModeMatchesOS(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	long := root
	for len(long) < 600 { // a path of several hundred bytes
		long = filepath.Join(long, "dddddddddddddddddddddddddddddd")
	}
	if err := os.MkdirAll(long, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, make := range map[string]func(string) error{
		"file": func(p string) error { return os.WriteFile(p, nil, 0o644) },
		"link": func(p string) error { return os.Symlink("file", p) },
		"dir":  func(p string) error { return os.Mkdir(p, 0o755) },
	} {
		if err := make(filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	paths := []string{root, filepath.Join(root, "file"), filepath.Join(root, "link"), filepath.Join(root, "dir"),
		filepath.Join(root, "missing"), filepath.Join(root, "file", "under"), long, filepath.Join(long, "missing"),
		"/dev/null", root + "\x00x"}
	for _, p := range paths {
		mode, err := lstatMode(p)
		fi, osErr := os.Lstat(p)
		if (err == nil) != (osErr == nil) || errors.Is(err, fs.ErrNotExist) != errors.Is(osErr, fs.ErrNotExist) {
			t.Errorf("lstatMode(%q) error %v, os.Lstat %v", p, err, osErr)
			continue
		}
		if err == nil && mode != fi.Mode().Type() {
			t.Errorf("lstatMode(%q) = %v, os.Lstat %v", p, mode, fi.Mode().Type())
		}
	}
}

// dirWithoutSymlinks reports whether openDirWithoutSymlinks proves d, closing what it opened.
func dirWithoutSymlinks(d string) bool {
	fd := openDirWithoutSymlinks(d)
	if fd < 0 {
		return false
	}
	closeDir(fd)
	return true
}
