package posjson

import (
	"bytes"
	"fmt"
	"sort"
)

// Error is a problem in a configuration file, at a position when it has one. Line and Col are
// 1-based (Col counts bytes); Line 0 means the problem is the whole file's.
type Error struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *Error) Error() string {
	if e.Line <= 0 {
		return e.File + ": " + e.Msg
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// Lines converts byte offsets to 1-based line and column numbers. Columns count bytes, so a
// column past a multi-byte character is larger than the number of characters a person sees.
type Lines []int // offsets at which each line starts

// NewLines indexes the lines of data.
func NewLines(data []byte) Lines {
	idx := make(Lines, 1, bytes.Count(data, []byte{'\n'})+1)
	for off := 0; ; {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			return idx
		}
		off += i + 1
		idx = append(idx, off)
	}
}

// Pos is the line and column of offset off, or 0, 0 for a negative offset (a value built in
// memory, which was never written).
func (idx Lines) Pos(off int) (line, col int) {
	if off < 0 {
		return 0, 0
	}
	i := sort.Search(len(idx), func(i int) bool { return idx[i] > off }) - 1
	return i + 1, off - idx[i] + 1
}

// Errorf is an *Error in file at offset off.
func (idx Lines) Errorf(file string, off int, format string, args ...any) *Error {
	line, col := idx.Pos(off)
	return &Error{File: file, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

const utf8BOM = "\xef\xbb\xbf"

// BlankBOM returns data with a leading byte-order mark, which some Windows editors write and
// JSON does not allow, replaced by blanks: cut, it would shift every column of the first line.
// data itself is not modified.
func BlankBOM(data []byte) []byte {
	if !bytes.HasPrefix(data, []byte(utf8BOM)) {
		return data
	}
	return append([]byte("   "), data[len(utf8BOM):]...)
}
