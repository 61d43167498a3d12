package boundedfile

import (
	"bytes"
	"context"
	"fmt"
	"io"
)

// firstBuffer is the line buffer Lines starts with; it grows, up to the line cap, only for a
// line longer than what it holds.
const firstBuffer = 64 << 10

// Lines calls fn for each line of the regular file at path, in order: the line with its
// newline, or without one for a last line that has none. The slice is valid only during the
// call. The file may be at most lim.MaxBytes bytes and a line at most lim.MaxLine bytes
// (without its newline); past either bound Lines stops with an error, after fn has seen the
// lines before. An error from fn stops Lines and is returned as it is.
//
// Only one line is held at a time, so a file of many lines costs the longest line's memory,
// not the file's.
func Lines(ctx context.Context, path string, lim Limits, fn func(line []byte) error) error {
	f, size, err := open(path, lim)
	if err != nil {
		return err
	}
	defer f.Close()
	s := lineSplitter{
		r: f, ctx: ctx, path: path, lim: lim, maxLine: lim.maxLine(), statSize: size,
		buf: make([]byte, min(firstBuffer, lim.maxLine()+1)),
	}
	return s.each(fn)
}

// lineSplitter holds the unconsumed part of the file: buf[start:end], of which
// buf[start:scanned] is known to have no newline.
type lineSplitter struct {
	r        io.Reader
	ctx      context.Context
	path     string
	lim      Limits
	maxLine  int
	statSize int64

	buf                 []byte
	start, scanned, end int
	total               int64 // bytes read so far
	line                int   // number of the line being read, from 1
	eof                 bool
	// from is the file offset the read began at; past 0, lines are known by offset, not
	// by number.
	from int64
}

func (s *lineSplitter) each(fn func(line []byte) error) error {
	s.line = 1
	for {
		if i := bytes.IndexByte(s.buf[s.scanned:s.end], '\n'); i >= 0 {
			nl := s.scanned + i
			if nl-s.start > s.maxLine {
				return s.tooLong()
			}
			if err := fn(s.buf[s.start : nl+1]); err != nil {
				return err
			}
			s.start, s.scanned = nl+1, nl+1
			s.line++
			continue
		}
		s.scanned = s.end
		if s.end-s.start > s.maxLine {
			return s.tooLong()
		}
		if s.eof {
			if s.start < s.end {
				return fn(s.buf[s.start:s.end])
			}
			return nil
		}
		if err := s.fill(); err != nil {
			return err
		}
	}
}

// fill makes room in the buffer (moving the partial line to its front, or growing it up to
// the line cap) and reads once into it.
func (s *lineSplitter) fill() error {
	if s.start > 0 {
		n := copy(s.buf, s.buf[s.start:s.end])
		s.scanned -= s.start
		s.start, s.end = 0, n
	}
	if s.end == len(s.buf) {
		bigger := make([]byte, min(2*len(s.buf), s.maxLine+1))
		copy(bigger, s.buf[:s.end])
		s.buf = bigger
	}
	if err := s.ctx.Err(); err != nil {
		return fmt.Errorf("reading %s: %w", s.path, err)
	}
	want := min(len(s.buf)-s.end, readChunk)
	n, err := s.r.Read(s.buf[s.end : s.end+want])
	s.end += n
	s.total += int64(n)
	if s.total > s.lim.MaxBytes {
		return &TooLargeError{Path: s.path, Size: max(s.statSize, s.total), Limit: s.lim.MaxBytes, Kind: s.lim.kind(), Grew: s.statSize <= s.lim.MaxBytes}
	}
	switch {
	case err == io.EOF:
		s.eof = true
	case err != nil:
		return fmt.Errorf("reading %s: %w", s.path, err)
	}
	return nil
}

func (s *lineSplitter) tooLong() error {
	e := &LineTooLongError{Path: s.path, Line: s.line, Offset: s.from + s.total - int64(s.end-s.start), Limit: s.maxLine, Kind: s.lim.kind()}
	if s.from > 0 {
		e.Line = 0
	}
	return e
}
