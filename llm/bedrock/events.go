package bedrock

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
)

// eventReader turns Bedrock's application/vnd.amazon.eventstream body into the Messages API's
// text/event-stream. Each "chunk" event carries one API event, base64-encoded, as
// {"bytes": "..."}; an exception becomes the API's "error" event, so the decoder above reports
// it as it reports the API's own stream errors.
type eventReader struct {
	body    io.ReadCloser
	dec     *eventstream.Decoder
	payload []byte
	buf     bytes.Buffer
	err     error
}

func newEventReader(body io.ReadCloser) *eventReader {
	return &eventReader{body: body, dec: eventstream.NewDecoder()}
}

func (r *eventReader) Read(p []byte) (int, error) {
	for r.buf.Len() == 0 && r.err == nil {
		r.err = r.next()
	}
	if r.buf.Len() > 0 {
		return r.buf.Read(p)
	}
	return 0, r.err
}

func (r *eventReader) Close() error { return r.body.Close() }

// next decodes one message into buf.
func (r *eventReader) next() error {
	msg, err := r.dec.Decode(r.body, r.payload[:0])
	if err != nil {
		if errors.Is(err, io.EOF) {
			return io.EOF
		}
		return fmt.Errorf("bedrock event stream: %w", err)
	}
	r.payload = msg.Payload
	switch header(msg, ":message-type") {
	case "event":
		if header(msg, ":event-type") != "chunk" {
			return nil // Bedrock's own events (e.g. metrics) carry nothing of the API's
		}
		var chunk struct {
			Bytes []byte `json:"bytes"` // base64 in the JSON, decoded by encoding/json
		}
		if err := json.Unmarshal(msg.Payload, &chunk); err != nil {
			return fmt.Errorf("bedrock event stream: chunk: %w", err)
		}
		var ev struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(chunk.Bytes, &ev); err != nil || ev.Type == "" {
			return fmt.Errorf("bedrock event stream: a chunk that is not an API event: %q", truncate(chunk.Bytes))
		}
		r.emit(ev.Type, chunk.Bytes)
	case "exception", "error":
		kind := header(msg, ":exception-type")
		if kind == "" {
			kind = header(msg, ":error-code")
		}
		var body struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(msg.Payload, &body)
		if body.Message == "" {
			body.Message = header(msg, ":error-message")
		}
		data, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]string{"type": apiErrorType(kind), "message": kind + ": " + body.Message}})
		r.emit("error", data)
	}
	return nil
}

// apiErrorType maps Bedrock's exceptions to the API's error types where their meaning is the
// same, so retrying treats a throttled stream as it treats an overloaded one.
func apiErrorType(exception string) string {
	switch exception {
	case "throttlingException", "ThrottlingException", "serviceUnavailableException", "ServiceUnavailableException":
		return "overloaded_error"
	case "validationException", "ValidationException":
		return "invalid_request_error"
	}
	return "api_error"
}

func (r *eventReader) emit(name string, data []byte) {
	r.buf.WriteString("event: ")
	r.buf.WriteString(name)
	r.buf.WriteString("\ndata: ")
	r.buf.Write(bytes.ReplaceAll(data, []byte("\n"), []byte("\ndata: ")))
	r.buf.WriteString("\n\n")
}

func header(m eventstream.Message, name string) string {
	if v := m.Headers.Get(name); v != nil {
		if s, ok := v.Get().(string); ok {
			return s
		}
	}
	return ""
}

func truncate(b []byte) string {
	if len(b) > 120 {
		return string(b[:120]) + "..."
	}
	return string(b)
}
