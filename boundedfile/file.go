package boundedfile

import (
	"context"
	"fmt"
	"io"
	"os"
)

// File is a regular file opened to read parts of it: one that may be larger than any single
// read of it allows, of which the caller reads only what it needs (a session's conversation
// since its last compaction, found from the end of a file whose history before it may be
// gigabytes). The bounds apply to each read, not to the file: [File.Lines] reads at most
// Limits.MaxBytes bytes from its offset, and [File.ReadAt] what the caller asks for.
//
// A File is not safe for concurrent use.
type File struct {
	f    *os.File
	path string
	size int64
}

// Open opens path for reading as [Read] and [Lines] do — without blocking, and only when the
// opened descriptor is a regular file ([*NotRegularError] otherwise; kind names the file in
// it) — whatever its size. The caller closes it.
func Open(path, kind string) (*File, error) {
	if kind == "" {
		kind = "file"
	}
	f, size, err := openRegular(path, kind)
	if err != nil {
		return nil, err
	}
	return &File{f: f, path: path, size: size}, nil
}

// Size is the file's size when it was opened; the file may have grown since.
func (f *File) Size() int64 { return f.size }

// Path is the path the file was opened by.
func (f *File) Path() string { return f.path }

// ReadAt reads len(p) bytes at offset off, as [io.ReaderAt].
func (f *File) ReadAt(p []byte, off int64) (int, error) { return f.f.ReadAt(p, off) }

// Stat returns the opened file's current information.
func (f *File) Stat() (os.FileInfo, error) { return f.f.Stat() }

// Close closes the file.
func (f *File) Close() error { return f.f.Close() }

// Lines calls fn for each line from offset off (which should be the start of a line) to the
// end of the file, as the package's [Lines] does for a whole file: at most lim.MaxBytes bytes
// are read from off ([*TooLargeError] past them, the file counted from off), and a line may be
// at most lim.MaxLine bytes ([*LineTooLongError], numbered from 1 when off is 0 and known by
// its offset otherwise). The context is checked before every chunk.
func (f *File) Lines(ctx context.Context, off int64, lim Limits, fn func(line []byte) error) error {
	if lim.MaxBytes <= 0 {
		return fmt.Errorf("reading %s: no size limit given", f.path)
	}
	if off < 0 || off > f.size {
		return fmt.Errorf("reading %s: offset %d is outside the file (%d bytes)", f.path, off, f.size)
	}
	statSize := f.size - off
	if statSize > lim.MaxBytes {
		return &TooLargeError{Path: f.path, Size: statSize, Limit: lim.MaxBytes, Kind: lim.kind()}
	}
	s := lineSplitter{
		r: io.NewSectionReader(f.f, off, 1<<62), ctx: ctx, path: f.path, lim: lim, maxLine: lim.maxLine(), statSize: statSize,
		buf: make([]byte, min(firstBuffer, lim.maxLine()+1)), from: off,
	}
	return s.each(fn)
}
