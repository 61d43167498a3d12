package settings

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// MaxFileSize is the largest settings or trust file Reins reads. A settings file is a few
// kilobytes; anything near this size is a mistake or an attack (a cloned repository whose
// .claude/settings.json is 50 MB of rules costs seconds and gigabytes to load), and a bound
// keeps every read short.
const MaxFileSize = 4 << 20

// readBounded reads a settings file only when it is a regular file (after symlinks) of at most
// MaxFileSize bytes. It opens without blocking, so a FIFO planted as settings.json cannot
// hang the open waiting for a writer, and checks the opened file rather than the path, so the
// file cannot be swapped between the check and the read. /dev/urandom, a FIFO, a socket or a
// folder is an error naming what it is.
func readBounded(name string) ([]byte, error) {
	fd, err := syscall.Open(name, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, &NotRegularError{Path: name, Mode: info.Mode()}
	}
	if info.Size() > MaxFileSize {
		return nil, &TooLargeError{Path: name, Size: info.Size()}
	}
	// The file may grow after the Stat; never read more than the cap.
	// Sized from the Stat, so a large file is not copied as the buffer doubles.
	buf := bytes.NewBuffer(make([]byte, 0, info.Size()+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(f, MaxFileSize+1)); err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	if buf.Len() > MaxFileSize {
		return nil, &TooLargeError{Path: name, Size: int64(buf.Len())}
	}
	return buf.Bytes(), nil
}

// NotRegularError is a settings path that is not a regular file: a device, FIFO, socket or
// folder. Reins refuses it rather than read from it without end.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file: settings are read only from regular files", e.Path, describeMode(e.Mode))
}

// TooLargeError is a settings file over MaxFileSize.
type TooLargeError struct {
	Path string
	Size int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is too large (%d bytes; settings files may be at most %d bytes, 4 MiB)", e.Path, e.Size, MaxFileSize)
}

func describeMode(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file (" + m.Type().String() + ")"
}

// danglingSymlink reports whether path is a symlink whose target does not exist: a Stat that
// says "not exist" for a path that Lstat finds.
func danglingSymlink(path string) (target string, ok bool) {
	info, err := os.Lstat(path)
	if err != nil || info.Mode()&fs.ModeSymlink == 0 {
		return "", false
	}
	if _, err := os.Stat(path); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return "", false
	}
	t, _ := os.Readlink(path)
	return t, true
}
