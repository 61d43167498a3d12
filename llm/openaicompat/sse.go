package openaicompat

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// sseReader reads server-sent events (the text/event-stream format) from a
// response body. It follows the format's rules for fields ("event:",
// "data:", with one optional space after the colon), comment lines
// (starting with ":"), multi-line data (joined with "\n") and LF or CRLF
// line ends, plus one leniency: a line that starts with "{" is taken as a
// complete data event, for servers that stream bare JSON lines.
type sseReader struct {
	r     *bufio.Reader
	line  []byte // scratch for lines longer than the bufio buffer
	data  []byte
	event string
}

func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, 16<<10)}
}

// next returns the next event's name (often empty) and data. The data is
// valid until the following call. At the end of the input it returns
// io.EOF, after dispatching an event left unterminated by a missing blank
// line.
func (s *sseReader) next() (event string, data []byte, err error) {
	s.data, s.event = s.data[:0], ""
	hasData := false
	for {
		line, err := s.readLine()
		if err != nil {
			if errors.Is(err, io.EOF) && hasData {
				return s.event, s.data, nil
			}
			return "", nil, err
		}
		if len(line) == 0 {
			if hasData {
				return s.event, s.data, nil
			}
			s.event = "" // an event without data is dropped
			continue
		}
		if line[0] == '{' && !hasData {
			s.data = append(s.data, line...)
			return "", s.data, nil
		}
		name, value, found := bytes.Cut(line, []byte(":"))
		if !found {
			value = nil // a line without a colon is a field with an empty value
		} else if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
		switch string(name) {
		case "": // comment
		case "data":
			if hasData {
				s.data = append(s.data, '\n')
			}
			s.data = append(s.data, value...)
			hasData = true
		case "event":
			s.event = string(value)
		}
	}
}

// readLine returns the next line without its LF or CRLF end. A final line
// without an end is returned before io.EOF.
func (s *sseReader) readLine() ([]byte, error) {
	line, err := s.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		s.line = append(s.line[:0], line...)
		for errors.Is(err, bufio.ErrBufferFull) {
			line, err = s.r.ReadSlice('\n')
			s.line = append(s.line, line...)
		}
		line = s.line
	}
	if err != nil && !(errors.Is(err, io.EOF) && len(line) > 0) {
		return nil, err
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	return line, nil
}
