package sdkproto

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
)

// ErrInputClosed answers the requests still waiting when the caller closed its end.
var ErrInputClosed = errors.New("the SDK caller closed its input")

// maxLine bounds one input line (a user message with images can be large); a longer line is
// reported and skipped.
const maxLine = 64 << 20

// inbound is any line the caller writes; Type says which fields are meaningful.
type inbound struct {
	Type string `json:"type"`
	// control_request and control_cancel_request.
	RequestID string          `json:"request_id"`
	Request   json.RawMessage `json:"request"`
	// control_response.
	Response *responseBody `json:"response"`
	// user.
	Message json.RawMessage `json:"message"`
	UUID    string          `json:"uuid"`
}

// responseBody is the inner object of a control_response, in both directions.
type responseBody struct {
	Subtype   string          `json:"subtype"`
	RequestID string          `json:"request_id"`
	Response  json.RawMessage `json:"response,omitempty"`
	Error     string          `json:"error,omitempty"`
}

type controlResponseLine struct {
	Type     string       `json:"type"`
	Response responseBody `json:"response"`
}

type controlRequestLine struct {
	Type      string `json:"type"`
	RequestID string `json:"request_id"`
	Request   any    `json:"request"`
}

type cancelRequestLine struct {
	Type      string `json:"type"`
	RequestID string `json:"request_id"`
}

// RequestError is the caller's error response to a request reins sent.
type RequestError struct{ Message string }

func (e *RequestError) Error() string { return "the SDK caller answered with an error: " + e.Message }

// Conn is the two-way line protocol over the caller's streams: it writes whole lines atomically
// and matches the caller's control_responses to the requests reins sent. It is safe for
// concurrent use.
type Conn struct {
	wmu  sync.Mutex
	out  io.Writer
	werr error

	mu      sync.Mutex
	pending map[string]chan responseBody
	next    int
	closed  bool
}

// NewConn writes to out.
func NewConn(out io.Writer) *Conn {
	return &Conn{out: out, pending: map[string]chan responseBody{}}
}

// WriteLine writes v as one JSON line. After a write fails every later write returns the same
// error: a caller that went away gets no half lines.
func (c *Conn) WriteLine(v any) error {
	b, err := marshalLine(v)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.werr != nil {
		return c.werr
	}
	if _, err := c.out.Write(b); err != nil {
		c.werr = fmt.Errorf("writing to the SDK caller: %w", err)
	}
	return c.werr
}

// Err is the first write error, if any.
func (c *Conn) Err() error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.werr
}

// marshalLine encodes v without HTML escaping, newline-terminated.
func marshalLine(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encoding a line for the SDK caller: %w", err)
	}
	return buf.Bytes(), nil
}

// Request sends a control_request and waits for its response. When ctx ends first it withdraws
// the request with a control_cancel_request and returns ctx's error; when the caller's input
// ends first it returns ErrInputClosed; an error response is a *RequestError.
func (c *Conn) Request(ctx context.Context, req any) (json.RawMessage, error) {
	wait, err := c.Begin(req)
	if err != nil {
		return nil, err
	}
	return wait(ctx)
}

// Begin sends a control_request and returns once it is written, so requests begun one after
// the other reach the caller in that order; wait waits for the response as Request does.
func (c *Conn) Begin(req any) (wait func(context.Context) (json.RawMessage, error), err error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, ErrInputClosed
	}
	c.next++
	id := "reins-" + strconv.Itoa(c.next)
	ch := make(chan responseBody, 1)
	c.pending[id] = ch
	c.mu.Unlock()

	if err := c.WriteLine(controlRequestLine{Type: "control_request", RequestID: id, Request: req}); err != nil {
		c.forget(id)
		return nil, err
	}
	return func(ctx context.Context) (json.RawMessage, error) { return c.await(ctx, id, ch) }, nil
}

func (c *Conn) await(ctx context.Context, id string, ch chan responseBody) (json.RawMessage, error) {
	select {
	case r, ok := <-ch:
		if !ok {
			return nil, ErrInputClosed
		}
		if r.Subtype == "error" {
			return nil, &RequestError{Message: r.Error}
		}
		if r.Subtype != "success" {
			return nil, &RequestError{Message: fmt.Sprintf("control_response of unknown subtype %q", r.Subtype)}
		}
		return r.Response, nil
	case <-ctx.Done():
		if c.forget(id) {
			c.WriteLine(cancelRequestLine{Type: "control_cancel_request", RequestID: id})
		}
		return nil, ctx.Err()
	}
}

// forget drops a pending request and reports whether it was still pending.
func (c *Conn) forget(id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.pending[id]
	delete(c.pending, id)
	return ok
}

// deliver hands a caller's response to the request waiting for it; it reports false for a
// request id reins is not waiting on (never sent, already answered or withdrawn).
func (c *Conn) deliver(r responseBody) bool {
	c.mu.Lock()
	ch, ok := c.pending[r.RequestID]
	delete(c.pending, r.RequestID)
	c.mu.Unlock()
	if ok {
		ch <- r
	}
	return ok
}

// closeInput fails every pending and future request with ErrInputClosed.
func (c *Conn) closeInput() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
}

// respond writes the success response to the caller's request id.
func (c *Conn) respond(id string, payload any) error {
	var raw json.RawMessage
	if payload != nil {
		b, err := json.Marshal(payload)
		if err != nil {
			return c.respondError(id, fmt.Sprintf("encoding the response: %v", err))
		}
		raw = b
	}
	return c.WriteLine(controlResponseLine{Type: "control_response", Response: responseBody{Subtype: "success", RequestID: id, Response: raw}})
}

// respondError writes an error response to the caller's request id.
func (c *Conn) respondError(id, msg string) error {
	return c.WriteLine(controlResponseLine{Type: "control_response", Response: responseBody{Subtype: "error", RequestID: id, Error: msg}})
}

// lineReader reads NDJSON lines of any length up to maxLine.
type lineReader struct {
	r *bufio.Reader
}

func newLineReader(r io.Reader) *lineReader { return &lineReader{r: bufio.NewReaderSize(r, 64<<10)} }

// next returns the next non-blank line without its newline. A line over maxLine is skipped
// whole and reported as errLineTooLong.
func (l *lineReader) next() ([]byte, error) {
	for {
		var line []byte
		tooLong := false
		for {
			chunk, err := l.r.ReadSlice('\n')
			if !tooLong {
				if len(line)+len(chunk) > maxLine {
					tooLong, line = true, nil
				} else {
					line = append(line, chunk...)
				}
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil && (len(line) == 0 || err != io.EOF) {
				if err == io.EOF && tooLong {
					return nil, errLineTooLong
				}
				return nil, err
			}
			break
		}
		if tooLong {
			return nil, errLineTooLong
		}
		if t := bytes.TrimSpace(line); len(t) > 0 {
			return t, nil
		}
	}
}

var errLineTooLong = fmt.Errorf("input line longer than %d bytes", maxLine)
