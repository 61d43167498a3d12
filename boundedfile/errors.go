package boundedfile

import (
	"fmt"
	"io/fs"
)

// NotRegularError is a path that is not a regular file once opened (after symlinks): a
// device, FIFO, socket or folder. Reading one could block or never end.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
	// Kind is the Limits' Kind: what the file was read as.
	Kind string
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file: %ss are read only from regular files", e.Path, DescribeMode(e.Mode), e.Kind)
}

// TooLargeError is a file over its Limits' MaxBytes.
type TooLargeError struct {
	Path string
	// Size is the file's size, or what was read of it when it grew past the limit.
	Size  int64
	Limit int64
	Kind  string
	// Grew is set when the file was within the limit when opened and grew past it while
	// it was read.
	Grew bool
}

func (e *TooLargeError) Error() string {
	grew := ""
	if e.Grew {
		grew = ", and growing while it was read"
	}
	return fmt.Sprintf("%s is too large (%d bytes%s; %ss may be at most %d bytes, %s)", e.Path, e.Size, grew, e.Kind, e.Limit, FormatLimit(e.Limit))
}

// LineTooLongError is a line longer than its Limits' MaxLine.
type LineTooLongError struct {
	Path string
	// Line is the line's number, from 1, or 0 when the read began past the start of the file
	// ([File.Lines]) and the line is known by its Offset only.
	Line int
	// Offset is the byte offset of the line's start in the file.
	Offset int64
	Limit  int
	Kind   string
}

func (e *LineTooLongError) Error() string {
	where := fmt.Sprintf("line %d", e.Line)
	if e.Line == 0 {
		where = fmt.Sprintf("the line at byte %d", e.Offset)
	}
	return fmt.Sprintf("%s: %s is too long (%ss may have lines of at most %d bytes, %s)", e.Path, where, e.Kind, e.Limit, FormatLimit(int64(e.Limit)))
}

// DescribeMode names a file type in words: "a FIFO", "a character device", "a folder".
func DescribeMode(m fs.FileMode) string {
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
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	}
	return "not a regular file (" + m.Type().String() + ")"
}

// FormatLimit writes a limit the way its constant reads: "4 MiB", "64 KiB", or bytes.
func FormatLimit(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
