package anthropic

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// maxLine bounds one line of the event stream, as the SDK's scanner did (32 MiB): a
// server that never ends a line cannot make the reader grow without limit.
const maxLine = 32 << 20

// sseReader reads server-sent events (text/event-stream) as the WHATWG HTML standard
// defines them: lines end with CRLF, LF or a lone CR; a blank line dispatches the event;
// a line starting with ":" is a comment; "field: value" loses one space after the colon,
// and a line without a colon is a field with an empty value; "data" lines are joined with
// LF; "event" names the event; other fields (id, retry, unknown) are ignored; a leading
// byte order mark is skipped. An event whose data is empty is not dispatched, and an
// event the stream ends in the middle of (no blank line after it) is dropped.
type sseReader struct {
	r       *bufio.Reader
	long    []byte // a line longer than r's buffer, gathered
	pending []byte // the rest of a chunk after a lone CR
	event   []byte
	data    []byte
	started bool
}

func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, 8<<10)}
}

// next returns the next event's name and data, valid until the following call, or io.EOF
// at the end of the stream, or the reading error.
func (s *sseReader) next() (event, data []byte, err error) {
	s.event, s.data = s.event[:0], s.data[:0]
	hasData := false
	for {
		line, err := s.readLine()
		if err != nil {
			return nil, nil, err
		}
		if len(line) == 0 {
			if hasData {
				return s.event, s.data, nil
			}
			s.event = s.event[:0]
			continue
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
// line the standard dispatches anything on, so it is dropped: io.EOF follows.
func (s *sseReader) readLine() ([]byte, error) {
	for {
		if len(s.pending) > 0 {
			return s.splitCR(), nil
		}
		chunk, err := s.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			s.long = append(s.long[:0], chunk...)
			for errors.Is(err, bufio.ErrBufferFull) {
				if len(s.long) > maxLine {
					return nil, fmt.Errorf("event stream line longer than %d bytes", maxLine)
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
func (s *sseReader) splitCR() []byte {
	i := bytes.IndexByte(s.pending, '\r')
	line := s.pending[:i]
	s.pending = s.pending[i+1:]
	return line
}
