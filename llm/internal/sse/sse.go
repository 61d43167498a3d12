// Package sse reads server-sent events (text/event-stream) for the llm adapters.
package sse

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// MaxLine bounds one line of an event stream, as the Anthropic SDK's scanner did (32 MiB):
// a server that never ends a line cannot make the reader grow without limit.
const MaxLine = 32 << 20

// Options are the leniencies some servers need, off by default.
type Options struct {
	// BareJSON takes a line that starts with "{", outside an event's data, as a whole
	// event with that data, for servers that stream JSON lines without "data:".
	BareJSON bool
	// Unterminated dispatches an event the stream ends in the middle of (no blank line
	// after it, or no line end after its last line) instead of dropping it.
	Unterminated bool
}

// Reader reads events as the WHATWG HTML standard defines them: lines end with CRLF, LF or
// a lone CR; a blank line dispatches the event; a line starting with ":" is a comment;
// "field: value" loses one space after the colon, and a line without a colon is a field
// with an empty value; "data" lines are joined with LF; "event" names the event; other
// fields (id, retry, unknown) are ignored; a leading byte order mark is skipped. An event
// whose data is empty is not dispatched.
type Reader struct {
	r       *bufio.Reader
	opts    Options
	long    []byte // a line longer than r's buffer, gathered
	pending []byte // the rest of a chunk after a lone CR
	event   []byte
	data    []byte
	started bool
}

// NewReader returns a Reader of r.
func NewReader(r io.Reader, opts Options) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, 8<<10), opts: opts}
}

// Next returns the next event's name (empty when it has none) and data, valid until the
// following call, or io.EOF at the end of the stream, or the reading error.
func (s *Reader) Next() (event, data []byte, err error) {
	s.event, s.data = s.event[:0], s.data[:0]
	hasData := false
	for {
		line, err := s.readLine()
		if err != nil {
			if hasData && s.opts.Unterminated && errors.Is(err, io.EOF) {
				return s.event, s.data, nil
			}
			return nil, nil, err
		}
		if len(line) == 0 {
			if hasData {
				return s.event, s.data, nil
			}
			s.event = s.event[:0]
			continue
		}
		if s.opts.BareJSON && line[0] == '{' && !hasData {
			s.data = append(s.data, line...)
			return nil, s.data, nil
		}
		name, value, found := bytes.Cut(line, []byte(":"))
		if found && len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
		switch string(name) {
		case "": // a comment
		case "event":
			s.event = append(s.event[:0], value...)
		case "data":
			if hasData {
				s.data = append(s.data, '\n')
			}
			s.data = append(s.data, value...)
			hasData = true
		}
	}
}

// readLine returns the next line without its end. A last line without an end is not a
// line the standard dispatches anything on, so it is dropped unless opts.Unterminated:
// io.EOF follows.
func (s *Reader) readLine() ([]byte, error) {
	for {
		if len(s.pending) > 0 {
			return s.splitCR(), nil
		}
		chunk, err := s.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			s.long = append(s.long[:0], chunk...)
			for errors.Is(err, bufio.ErrBufferFull) {
				if len(s.long) > MaxLine {
					return nil, fmt.Errorf("event stream line longer than %d bytes", MaxLine)
				}
				chunk, err = s.r.ReadSlice('\n')
				s.long = append(s.long, chunk...)
			}
			chunk = s.long
		}
		if !s.started {
			s.started = true
			chunk = bytes.TrimPrefix(chunk, []byte("\ufeff"))
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				return nil, err
			}
			if s.opts.Unterminated && len(chunk) > 0 && chunk[len(chunk)-1] != '\r' {
				// The last piece becomes a line as if a CR ended it. Copied: chunk may
				// be r's buffer, which is not ours to append to.
				s.long = append(append(s.long[:0], chunk...), '\r')
				chunk = s.long
			}
			// Lines the last chunk ends with a CR are complete; the part after the last
			// CR is not.
			if i := bytes.LastIndexByte(chunk, '\r'); i >= 0 {
				s.pending = chunk[:i+1]
				continue
			}
			return nil, io.EOF
		}
		chunk = chunk[:len(chunk)-1] // the LF
		if bytes.IndexByte(chunk, '\r') < 0 {
			return chunk, nil
		}
		if n := len(chunk); chunk[n-1] == '\r' {
			chunk = chunk[:n-1] // CRLF
		}
		// One or more lone CRs inside: split there. The LF end is kept as a CR, which
		// ends the last piece the same way.
		s.pending = append(chunk, '\r')
	}
}

// splitCR takes the first CR-ended line off s.pending.
func (s *Reader) splitCR() []byte {
	i := bytes.IndexByte(s.pending, '\r')
	line := s.pending[:i]
	s.pending = s.pending[i+1:]
	return line
}

// Truncate shortens s to at most n bytes, without splitting a character, for error
// messages that quote a server's body or event.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
