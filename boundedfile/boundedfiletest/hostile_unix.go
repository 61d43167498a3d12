//go:build unix

package boundedfiletest

import (
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Mkfifo makes a FIFO at path, readable and writable by its owner. It exists on Unix only:
// Windows file systems hold no FIFOs (its named pipes live under \\.\pipe\), so a test that
// needs one is a Unix test.
func Mkfifo(path string) error { return syscall.Mkfifo(path, 0o600) }

// systemHostile is what only Unix can put at a path. Windows has no FIFOs and no device
// files in folders (its devices, NUL and CON, are names, which the path checks refuse), and a
// symlink there needs a privilege (Wine 8 makes none); Windows 10 has AF_UNIX sockets, but
// Wine 8, which runs the Windows tests, does not (WSAEAFNOSUPPORT).
func systemHostile() []File {
	return []File{
		{"FIFO", func(t testing.TB, p string) {
			if err := Mkfifo(p); err != nil {
				t.Fatal(err)
			}
		}, "is a FIFO, not a regular file"},
		{"symlink to /dev/zero", SymlinkTo("/dev/zero"), "is a character device, not a regular file"},
		{"symlink to /dev/urandom", SymlinkTo("/dev/urandom"), "is a character device, not a regular file"},
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
				t.Fatal(err)
			}
			t.Cleanup(func() { l.Close() })
			if err := os.Rename(filepath.Join(dir, "s"), p); err != nil {
				t.Fatal(err)
			}
		}, "is a socket, not a regular file"},
	}
}

// SymlinkTo makes path a symlink to target.
func SymlinkTo(target string) func(t testing.TB, path string) {
	return func(t testing.TB, p string) {
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
}
