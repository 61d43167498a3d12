// Package boundedfile is the one way Reins reads a file it did not just write itself and
// that someone else may have put in place: settings, session transcripts, agent definitions,
// MCP configs. Such a file may be a symlink to /dev/zero (the read grows until the kernel
// kills the process), a FIFO (the open or the read waits for a writer that never comes), or a
// regular file of gigabytes. Every read here is bounded three ways:
//
//   - by type: the file is opened without blocking (O_NONBLOCK, so a FIFO cannot hang the
//     open), and the opened descriptor — not the path, so nothing can be swapped in between
//     — must be a regular file; anything else is a [*NotRegularError] naming what it is;
//   - by size: a file over [Limits.MaxBytes] is a [*TooLargeError] stating the size and the
//     cap, before anything is read, and the read stops at the cap even if the file grows
//     while it is read; [Lines] also caps each line ([*LineTooLongError]);
//   - by time: the context is checked before every chunk, so a cancelled context (SIGINT and
//     SIGTERM cancel the CLI's) ends a read of a large file on a slow or FUSE file system
//     within one chunk, with an error that wraps the context's.
//
// Nothing is ever truncated silently: a file over a bound is an error, and the file is left as
// it is. Symlinks are followed (a settings file or a session folder may legitimately be a
// link); the type check applies to what the link reaches.
//
// The package imports only the standard library: the pure core (settings) reads its files
// through it, and the core depends on nothing outside the standard library and the shell
// parser (internal/archtest).
package boundedfile

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Limits bound one kind of file.
type Limits struct {
	// MaxBytes is the largest file read, in bytes; it must be positive.
	MaxBytes int64
	// MaxLine is the longest line [Lines] yields, in bytes without its newline; zero means
	// MaxBytes. [Read] ignores it.
	MaxLine int
	// Kind names the files in errors, in the singular: "settings file", "session file".
	// Empty means "file".
	Kind string
}

func (l Limits) kind() string {
	if l.Kind == "" {
		return "file"
	}
	return l.Kind
}

func (l Limits) maxLine() int {
	if l.MaxLine <= 0 || int64(l.MaxLine) > l.MaxBytes {
		return int(l.MaxBytes)
	}
	return l.MaxLine
}

// readChunk is how much one read asks for: small enough that a cancelled context is seen
// quickly even on a slow file system, large enough that a big file costs few system calls.
const readChunk = 1 << 20

// Read returns the content of the regular file at path, of at most lim.MaxBytes bytes.
func Read(ctx context.Context, path string, lim Limits) ([]byte, error) {
	f, size, err := open(path, lim)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAll(ctx, f, path, size, lim)
}

// readAll reads r to its end, of at most lim.MaxBytes bytes; size is what the file's Stat said.
func readAll(ctx context.Context, r io.Reader, path string, size int64, lim Limits) ([]byte, error) {
	// The size is a hint only: the file may grow or shrink after the Stat, and files under
	// /proc say 0.
	buf := make([]byte, 0, min(size, lim.MaxBytes)+1)
	for {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		// Never ask for more than one byte past the cap: that byte is the proof it is over.
		want := min(cap(buf)-len(buf), readChunk, int(lim.MaxBytes+1-int64(len(buf))))
		n, err := r.Read(buf[len(buf) : len(buf)+want])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > lim.MaxBytes {
			return nil, &TooLargeError{Path: path, Size: max(size, int64(len(buf))), Limit: lim.MaxBytes, Kind: lim.kind(), Grew: size <= lim.MaxBytes}
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
	}
}

// open opens path for reading without blocking and returns it only when it is a regular file
// of at most lim.MaxBytes bytes, with its size.
func open(path string, lim Limits) (*os.File, int64, error) {
	if lim.MaxBytes <= 0 {
		return nil, 0, fmt.Errorf("reading %s: no size limit given", path)
	}
	f, size, err := openRegular(path, lim.kind())
	if err != nil {
		return nil, 0, err
	}
	if size > lim.MaxBytes {
		f.Close()
		return nil, 0, &TooLargeError{Path: path, Size: size, Limit: lim.MaxBytes, Kind: lim.kind()}
	}
	return f, size, nil
}

// openRegular opens path for reading without blocking and returns it only when it is a
// regular file, with its size; kind names the file in errors.
func openRegular(path, kind string) (*os.File, int64, error) {
	f, err := openNonBlocking(path)
	if err != nil {
		// A socket cannot be opened at all (ENXIO): say what it is rather than how the open
		// failed. Nothing is read, so the path's Stat is safe here.
		if info, serr := os.Stat(path); serr == nil && !info.Mode().IsRegular() {
			return nil, 0, &NotRegularError{Path: path, Mode: info.Mode(), Kind: kind}
		}
		return nil, 0, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, 0, &NotRegularError{Path: path, Mode: info.Mode(), Kind: kind}
	}
	return f, info.Size(), nil
}
