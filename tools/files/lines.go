package files

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// lineScan is what a scan of a file's lines found.
type lineScan struct {
	// text holds the returned lines in cat -n form, "<n>\t<line>", joined by newlines. It is
	// cut off once it reaches the scan's byte bound (the caller then refuses the read anyway).
	text []byte
	// lines is the number of lines returned; bytes their size in the file, newlines included.
	lines int
	bytes int64
	// eof is set when the scan reached the end of the file; total is then its line count.
	eof   bool
	total int
}

// scanBufSize is the read size of a scan: large enough that skipping lines runs at memory
// speed, small enough to not matter.
const scanBufSize = 1 << 20

// scanLines reads lines start through start+limit-1 (1-based; limit 0 means to the end) of
// the UTF-8 text r in one pass. Lines before start are skipped by counting newlines, so memory
// stays at one buffer however far into the file start is; at most maxText bytes of returned
// text are kept. CR LF endings become LF and a leading byte-order mark is dropped. size, when
// positive, is how many bytes r is expected to hold: a small file then gets a small buffer
// (the size only sets the read size, so a file that grows meanwhile is still read whole).
func scanLines(r io.Reader, start, limit int, maxText int, size int64) (lineScan, error) {
	sc := lineScanner{start: max(start, 1), limit: limit, maxText: maxText}
	r = skipBOM(r)
	buf := make([]byte, scanReadSize(size))
	for {
		n, err := r.Read(buf)
		if full, drained := sc.take(buf[:n]); full {
			// Whether the file ends right after the last line asked for is known only
			// when that line ended the read.
			if drained && atEOF(r, buf) {
				sc.s.eof, sc.s.total = true, sc.done
			}
			return sc.s, nil
		}
		if errors.Is(err, io.EOF) {
			sc.end()
			return sc.s, nil
		}
		if err != nil {
			return sc.s, err
		}
	}
}

// skipBOM returns r without a leading UTF-8 byte-order mark. It peeks through a small
// buffer, which large reads bypass.
func skipBOM(r io.Reader) io.Reader {
	br := bufio.NewReaderSize(r, 16)
	if b, _ := br.Peek(len(bomUTF8)); bytes.Equal(b, bomUTF8) {
		br.Discard(len(bomUTF8))
	}
	return br
}

// scanReadSize is the read size for a file expected to hold size bytes (0: unknown).
func scanReadSize(size int64) int {
	if size <= 0 {
		return scanBufSize
	}
	// One more byte than the file, so that the read that meets its end is the first.
	return int(min(max(size+1, 4096), scanBufSize))
}

// lineScanner is the state of scanLines between reads.
type lineScanner struct {
	s            lineScan
	start, limit int
	maxText      int
	done         int    // complete lines consumed
	partial      bool   // bytes of a line not yet ended by a newline were consumed
	cur          []byte // the line being collected (bounded)
	curLen       int64  // its real length
}

// take consumes one read's bytes: it skips the lines before start and collects the lines
// from start on. It reports whether the limit was reached, and then whether that used up
// the read.
func (sc *lineScanner) take(chunk []byte) (full, drained bool) {
	for len(chunk) > 0 {
		if sc.done+1 < sc.start {
			chunk = sc.skip(chunk)
			continue
		}
		i := bytes.IndexByte(chunk, '\n')
		if i < 0 {
			sc.keep(chunk)
			break
		}
		sc.keep(chunk[:i])
		chunk = chunk[i+1:]
		sc.emit()
		if sc.limit > 0 && sc.s.lines == sc.limit {
			return true, len(chunk) == 0
		}
	}
	return false, false
}

// skip consumes the lines of chunk before start and returns the rest of it.
func (sc *lineScanner) skip(chunk []byte) []byte {
	need := sc.start - 1 - sc.done
	if c := bytes.Count(chunk, []byte{'\n'}); c < need {
		sc.done += c
		sc.partial = chunk[len(chunk)-1] != '\n'
		return nil
	}
	for ; need > 0; need-- {
		i := bytes.IndexByte(chunk, '\n')
		chunk = chunk[i+1:]
		sc.done++
	}
	sc.partial = false
	return chunk
}

// keep adds b to the line being collected, up to the text bound.
func (sc *lineScanner) keep(b []byte) {
	sc.curLen += int64(len(b))
	sc.partial = sc.partial || len(b) > 0
	if room := sc.maxText - len(sc.cur); room > 0 {
		sc.cur = append(sc.cur, b[:min(room, len(b))]...)
	}
}

// emit ends the line being collected: it is counted and, while there is room, appended to
// the text in cat -n form.
func (sc *lineScanner) emit() {
	s := &sc.s
	line := sc.cur
	if len(line) > 0 && line[len(line)-1] == '\r' && int64(len(line)) == sc.curLen {
		line = line[:len(line)-1]
	}
	s.bytes += sc.curLen + 1
	if len(s.text) < sc.maxText {
		if s.lines > 0 {
			s.text = append(s.text, '\n')
		}
		s.text = strconv.AppendInt(s.text, int64(sc.done+1), 10)
		s.text = append(s.text, '\t')
		room := sc.maxText - len(s.text)
		if room < len(line) {
			line = line[:max(room, 0)]
		}
		s.text = append(s.text, line...)
	}
	s.lines++
	sc.done++
	sc.cur, sc.curLen, sc.partial = sc.cur[:0], 0, false
}

// end counts a last line without a newline, and records the file's line count.
func (sc *lineScanner) end() {
	if sc.partial {
		if sc.done+1 >= sc.start {
			sc.emit()
		} else {
			sc.done++
		}
	}
	sc.s.eof, sc.s.total = true, sc.done
}

// atEOF reports whether r has nothing more to read.
func atEOF(r io.Reader, buf []byte) bool {
	for {
		n, err := r.Read(buf[:1])
		if n > 0 {
			return false
		}
		if err != nil {
			return true
		}
	}
}

// utf16LEReader decodes a UTF-16LE stream (without its byte-order mark) to UTF-8.
type utf16LEReader struct {
	r     io.Reader
	in    []byte
	carry []byte
	hi    rune // a high surrogate waiting for its pair
	out   []byte
	err   error
}

func newUTF16LEReader(r io.Reader) *utf16LEReader {
	return &utf16LEReader{r: r, in: make([]byte, 64<<10)}
}

func (u *utf16LEReader) Read(p []byte) (int, error) {
	for len(u.out) == 0 {
		if u.err != nil {
			return 0, u.err
		}
		n, err := u.r.Read(u.in)
		data := append(u.carry, u.in[:n]...)
		even := len(data) &^ 1
		for i := 0; i < even; i += 2 {
			c := rune(uint16(data[i]) | uint16(data[i+1])<<8)
			if u.hi != 0 {
				hi := u.hi
				u.hi = 0
				if r := utf16.DecodeRune(hi, c); r != utf8.RuneError {
					u.out = utf8.AppendRune(u.out, r)
					continue
				}
				u.out = utf8.AppendRune(u.out, utf8.RuneError)
			}
			if c >= 0xD800 && c < 0xDC00 {
				u.hi = c
				continue
			}
			if utf16.IsSurrogate(c) {
				c = utf8.RuneError
			}
			u.out = utf8.AppendRune(u.out, c)
		}
		u.carry = append(u.carry[:0], data[even:]...)
		if err != nil {
			if u.hi != 0 {
				u.out = utf8.AppendRune(u.out, utf8.RuneError)
			}
			if len(u.carry) > 0 {
				u.out = utf8.AppendRune(u.out, utf8.RuneError)
			}
			u.hi, u.carry = 0, nil
			u.err = err
		}
	}
	n := copy(p, u.out)
	u.out = u.out[n:]
	return n, nil
}
