package search

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/reinsdev/reins/tool"
)

// A content search whose output goes to a file (the caller gave Env.CreateResultFile) holds
// little of it in memory. Past spillThreshold bytes of text held by finished files, each file
// finished from then on moves its text to an unlinked spill file and keeps only where it is;
// rendering then copies the files' text in sorted order from there into the output, which a
// textSink sends to a file once it outgrows what a result the model sees whole can be. Only
// the output's head stays in memory, for the preview.

// spillThreshold is how many bytes of finished files' text a search holds before it spills.
// Small, because the garbage collector lets the heap grow to twice what is live: on the
// 547 MB bench tree (21 MB of errors.New lines) 2 MiB held gave a 20 MB peak, 256 KiB 14 MB.
// A variable so that tests can force the spill.
var spillThreshold int64 = 256 << 10

// spillArenaChunk bounds rg's line arena's chunks in a search that spills.
const spillArenaChunk = 64 << 10

// spilledSpan is a part of a file's text in the spill file.
type spilledSpan struct{ off, n int64 }

// spill is the spill file of one search. done is safe for concurrent use (the engines'
// workers finish files at once); the rest is for rendering, which runs alone.
type spill struct {
	mu     sync.Mutex
	f      *os.File // nil until the first spill; unlinked at once
	off    int64    // where the next span starts
	held   int64    // bytes of text held by finished files, not spilled
	failed bool     // no spill file could be made: everything stays in memory
	// wbuf gathers spilled text for one write of spillWrite bytes at flushed, rather than
	// a system call per file; err is the first write's failure, reported at rendering.
	wbuf    []byte
	flushed int64
	err     error
	// win is a window of the file read back, at winOff: files that are neighbours in the
	// output were mostly searched, and spilled, together, so one read serves many. ahead
	// are the files about to be written, in order, which a window read is made to cover.
	win    []byte
	winOff int64
	ahead  []*fileResult
	buf    []byte // for spans larger than the window
}

const spillWrite = 64 << 10

// spillWindow is the most read back from the spill file at a time. A variable so that tests
// can make windows of a few lines.
var spillWindow int64 = 64 << 10

// done is called once r's text is complete: past the threshold, it moves to the spill file. A
// result's text is then wholly spilled or wholly in memory. (rg may print a file's lines in
// parts; each part is a result of its own, see parseRg.)
func (s *spill) done(r *fileResult) {
	if s == nil {
		return
	}
	n := r.size()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.held += n
	if s.failed || s.held <= spillThreshold || n == 0 {
		return
	}
	if s.f == nil {
		f, err := os.CreateTemp("", "reins-grep-spill-*")
		if err != nil {
			s.failed = true
			return
		}
		// Unlinked at once: the open file stays usable, and nothing is left behind even if
		// reins is killed.
		os.Remove(f.Name())
		s.f, s.wbuf = f, make([]byte, 0, spillWrite)
	}
	for _, t := range r.text {
		s.wbuf = append(s.wbuf, t...)
	}
	r.spilled = spilledSpan{s.off, n}
	r.text = nil
	s.off += n
	s.held -= n
	if len(s.wbuf) >= spillWrite {
		s.flush()
	}
}

// flush writes wbuf out.
func (s *spill) flush() {
	if len(s.wbuf) == 0 || s.err != nil {
		return
	}
	if _, err := s.f.WriteAt(s.wbuf, s.flushed); err != nil {
		s.err = fmt.Errorf("writing the spilled output: %w", err)
		return
	}
	s.flushed += int64(len(s.wbuf))
	s.wbuf = s.wbuf[:0]
	if cap(s.wbuf) > 2*spillWrite {
		s.wbuf = make([]byte, 0, spillWrite) // a large file's text grew it
	}
}

// writing tells the spill which files are written next, in order, the first one being
// written now: a window read covers as many of them as it can.
func (s *spill) writing(ahead []*fileResult) {
	if s != nil {
		s.ahead = ahead
	}
}

// maxLookahead bounds how many spans a window read looks ahead at.
const maxLookahead = 512

// span returns the bytes of sp, valid until the next call, when sp fits the window; nil
// otherwise. The spill must be done writing.
//
// A read fetches sp and the spans of the files written after it, in order, as far as they
// lie within one window's reach of each other. Files spilled side by side are seldom
// neighbours in the output (rg visits a folder's files in the order the file system lists
// them, and two threads interleave their folders), but a folder's files lie close together:
// a window read from sp on, as it was, missed those before sp and read most of the window
// for nothing (240 MB read back for 21 MB of output on the bench tree).
func (s *spill) span(sp spilledSpan) ([]byte, error) {
	if sp.n > spillWindow {
		return nil, nil
	}
	if sp.off < s.winOff || sp.off+sp.n > s.winOff+int64(len(s.win)) {
		if s.win == nil {
			s.win = make([]byte, spillWindow)
		}
		lo, hi := sp.off, sp.off+sp.n
		seen := 0
		for _, r := range s.ahead {
			x := r.spilled
			if x.n == 0 {
				continue
			}
			if seen++; seen > maxLookahead {
				break
			}
			nlo, nhi := min(lo, x.off), max(hi, x.off+x.n)
			if nhi-nlo > spillWindow {
				break
			}
			lo, hi = nlo, nhi
		}
		s.win = s.win[:hi-lo]
		k, err := s.f.ReadAt(s.win, lo)
		if k < len(s.win) {
			s.win, s.winOff = s.win[:0], 0
			if err == nil || errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, fmt.Errorf("reading back the spilled output: %w", err)
		}
		s.winOff = lo
	}
	return s.win[sp.off-s.winOff : sp.off-s.winOff+sp.n], nil
}

// readable finishes the writes before the file is read back.
func (s *spill) readable() error {
	if s == nil || s.f == nil {
		return nil
	}
	s.flush()
	return s.err
}

// close releases the spill file.
func (s *spill) close() {
	if s != nil && s.f != nil {
		s.f.Close()
	}
}

// writeText writes r's whole text to w.
func (s *spill) writeText(w io.Writer, r *fileResult) error {
	if err := s.writeSpilled(w, r.spilled); err != nil {
		return err
	}
	for _, t := range r.text {
		if _, err := w.Write(t); err != nil {
			return err
		}
	}
	return nil
}

// writeSpilled writes the spilled span sp (none when its n is 0) to w.
func (s *spill) writeSpilled(w io.Writer, sp spilledSpan) error {
	if sp.n == 0 {
		return nil
	}
	b, err := s.span(sp)
	if err != nil {
		return err
	}
	if b != nil {
		_, err := w.Write(b)
		return err
	}
	if s.buf == nil {
		s.buf = make([]byte, 64<<10)
	}
	// One buffer for every file: io.Copy would allocate one per call.
	if _, err := io.CopyBuffer(w, io.NewSectionReader(s.f, sp.off, sp.n), s.buf); err != nil {
		return fmt.Errorf("reading back the spilled output: %w", err)
	}
	return nil
}

// forLines calls f with each line of r's text, its '\n' included, until f returns false.
func (s *spill) forLines(r *fileResult, f func(line []byte) bool) error {
	more, err := s.spilledLines(r.spilled, f)
	if err != nil || !more {
		return err
	}
	for _, t := range r.text {
		if !eachLine(t, f) {
			return nil
		}
	}
	return nil
}

// spilledLines calls f with each line of the spilled span sp (none when its n is 0) until f
// returns false, and reports whether it did not.
func (s *spill) spilledLines(sp spilledSpan, f func(line []byte) bool) (bool, error) {
	if sp.n == 0 {
		return true, nil
	}
	b, err := s.span(sp)
	if err != nil {
		return false, err
	}
	if b != nil {
		return eachLine(b, f), nil
	}
	br := bufio.NewReaderSize(io.NewSectionReader(s.f, sp.off, sp.n), 64<<10)
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			line, err = readLong(br, line, '\n')
		}
		if len(line) > 0 && !f(line) {
			return false, nil
		}
		if err == io.EOF {
			return true, nil
		}
		if err != nil {
			return false, fmt.Errorf("reading back the spilled output: %w", err)
		}
	}
}

// eachLine calls f with each line of t until f returns false, and reports whether it did not.
func eachLine(t []byte, f func(line []byte) bool) bool {
	for len(t) > 0 {
		end := bytes.IndexByte(t, '\n') + 1
		if end == 0 {
			end = len(t)
		}
		if !f(t[:end]) {
			return false
		}
		t = t[end:]
	}
	return true
}

// textSink collects a result's text: in memory while it is at most limit bytes, then, when
// create is set, in a file from create (the memory part copied there first). It counts the
// text's bytes and characters and keeps its head for a preview. A final '\n' is held back
// until more follows, so that trimNewline can drop it.
type textSink struct {
	create func() (*os.File, error)
	limit  int
	mem    strings.Builder
	f      *os.File
	w      *bufio.Writer
	size   int64 // bytes emitted
	chars  int64
	head   []byte
	// nl is a final '\n' written but not emitted yet.
	nl  bool
	err error
}

func (s *textSink) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, s.err
	}
	if s.nl {
		s.emit(newline)
		s.nl = false
	}
	if p[len(p)-1] == '\n' {
		s.emit(p[:len(p)-1])
		s.nl = true
	} else {
		s.emit(p)
	}
	if s.err != nil {
		return 0, s.err
	}
	return len(p), nil
}

// WriteString is Write for a string.
func (s *textSink) WriteString(str string) (int, error) { return s.Write([]byte(str)) }

func (s *textSink) emit(p []byte) {
	if s.err != nil || len(p) == 0 {
		return
	}
	s.size += int64(len(p))
	if len(s.head) < tool.TextFileHead {
		s.head = append(s.head, p[:min(len(p), tool.TextFileHead-len(s.head))]...)
	}
	if s.f == nil && s.create != nil && s.mem.Len()+len(p) > s.limit {
		f, err := s.create()
		if err != nil {
			// No file: the text stays in memory, as without one.
			s.create = nil
		} else {
			s.f, s.w = f, bufio.NewWriterSize(f, 64<<10)
			s.chars = countChars([]byte(s.mem.String()))
			_, s.err = s.w.WriteString(s.mem.String())
			s.mem = strings.Builder{}
		}
	}
	if s.f == nil {
		// Characters are counted for a file only: the text in memory is counted by
		// whoever reads it.
		s.mem.Write(p)
		return
	}
	s.chars += countChars(p)
	if s.err == nil {
		_, s.err = s.w.Write(p)
	}
}

// grow makes room for n more bytes held in memory, so that a large text is built in one
// allocation rather than by doubling (which briefly holds it twice over).
func (s *textSink) grow(n int) {
	if s.f == nil && (s.create == nil || s.mem.Len()+n <= s.limit) {
		s.mem.Grow(n)
	}
}

// trimNewline drops a final '\n' written to the sink.
func (s *textSink) trimNewline() { s.nl = false }

// abort drops the text, removing its file if there is one.
func (s *textSink) abort() {
	if s.f != nil {
		s.f.Close()
		os.Remove(s.f.Name())
		s.f = nil
	}
	s.mem = strings.Builder{}
}

// finish returns the text held in memory, or the file that holds it. On an error the file is
// removed.
func (s *textSink) finish() (string, *tool.TextFile, error) {
	if s.nl {
		s.emit(newline)
		s.nl = false
	}
	if s.f == nil {
		return s.mem.String(), nil, s.err
	}
	err := s.err
	if err == nil {
		err = s.w.Flush()
	}
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(s.f.Name())
		return "", nil, fmt.Errorf("writing the result to %s: %w", s.f.Name(), err)
	}
	return "", &tool.TextFile{Path: s.f.Name(), Size: s.size, Chars: s.chars, Head: string(s.head)}, nil
}

var newline = []byte{'\n'}

// countChars counts the UTF-8 sequences of p (every byte that is not a continuation byte),
// which needs no care where a write cuts a character. It takes eight bytes at a time: a
// saved result of 20 MB is counted whole, and byte by byte that was a third of the time
// spent writing it out.
func countChars(p []byte) int64 {
	n := int64(len(p))
	for len(p) >= 8 {
		x := binary.LittleEndian.Uint64(p)
		// A continuation byte is 10xxxxxx: bit 7 set and bit 6 clear; shifting the word
		// left by one brings each byte's bit 6 to its bit 7.
		n -= int64(bits.OnesCount64(x &^ (x << 1) & 0x8080808080808080))
		p = p[8:]
	}
	for _, c := range p {
		if !utf8.RuneStart(c) {
			n--
		}
	}
	return n
}
