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
	var s lineScan
	if start < 1 {
		start = 1
	}
	// Peek through short reads for a byte-order mark; large reads bypass the small buffer.
	br := bufio.NewReaderSize(r, 16)
	if b, _ := br.Peek(len(bomUTF8)); bytes.Equal(b, bomUTF8) {
		br.Discard(len(bomUTF8))
	}
	r = br
	bufSize := scanBufSize
	if size > 0 {
		// One more byte than the file, so that the read that meets its end is the first.
		bufSize = int(min(max(size+1, 4096), scanBufSize))
	}
	buf := make([]byte, bufSize)
	var (
		done    int    // complete lines consumed
		partial bool   // bytes of a line not yet ended by a newline were consumed
		cur     []byte // the line being collected (bounded)
		curLen  int64  // its real length
	)
	emit := func() {
		n := curLen
		line := cur
		if len(line) > 0 && line[len(line)-1] == '\r' && int64(len(line)) == curLen {
			line = line[:len(line)-1]
		}
		s.bytes += n + 1
		if len(s.text) < maxText {
			if s.lines > 0 {
				s.text = append(s.text, '\n')
			}
			s.text = strconv.AppendInt(s.text, int64(done+1), 10)
			s.text = append(s.text, '\t')
			room := maxText - len(s.text)
			if room < len(line) {
				line = line[:max(room, 0)]
			}
			s.text = append(s.text, line...)
		}
		s.lines++
		done++
		cur, curLen, partial = cur[:0], 0, false
	}
	keep := func(b []byte) {
		curLen += int64(len(b))
		partial = partial || len(b) > 0
		if room := maxText - len(cur); room > 0 {
			cur = append(cur, b[:min(room, len(b))]...)
		}
	}
	for {
		n, err := r.Read(buf)
		chunk := buf[:n]
		for len(chunk) > 0 {
			if done+1 < start {
				need := start - 1 - done
				if c := bytes.Count(chunk, []byte{'\n'}); c < need {
					done += c
					partial = chunk[len(chunk)-1] != '\n'
					chunk = nil
					break
				}
				for ; need > 0; need-- {
					i := bytes.IndexByte(chunk, '\n')
					chunk = chunk[i+1:]
					done++
				}
				partial = false
				continue
			}
			i := bytes.IndexByte(chunk, '\n')
			if i < 0 {
				keep(chunk)
				break
			}
			keep(chunk[:i])
			chunk = chunk[i+1:]
			emit()
			if limit > 0 && s.lines == limit {
				if len(chunk) == 0 {
					s.eof = atEOF(r, buf)
				}
				if s.eof {
					s.total = done
				}
				return s, nil
			}
		}
		if errors.Is(err, io.EOF) {
			if partial {
				if done+1 >= start {
					emit()
				} else {
					done++
				}
			}
			s.eof, s.total = true, done
			return s, nil
		}
		if err != nil {
			return s, err
		}
	}
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
