package filelock_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/reinsdev/reins/filelock"
)

// Two open files of the same path exclude each other, the lock ends with the file, and the
// locked file stays readable and writable through other handles (Windows' locks are
// mandatory: the locked byte lies past the content).
func TestTryLockExcludesAnotherOpenFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("content\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	open := func() *os.File {
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	a, b := open(), open()
	defer b.Close()
	if err := filelock.TryLock(a); err != nil {
		t.Fatalf("first lock: %v", err)
	}
	if err := filelock.TryLock(b); !errors.Is(err, filelock.ErrLocked) {
		t.Fatalf("second lock = %v, want ErrLocked", err)
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != "content\n" {
		t.Fatalf("reading the locked file = %q, %v", got, err)
	}
	w, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.WriteString("more\n"); err != nil {
		t.Fatalf("appending to the locked file: %v", err)
	}
	w.Close()
	a.Close()
	if err := filelock.TryLock(b); err != nil {
		t.Fatalf("lock after the holder closed: %v", err)
	}
}
