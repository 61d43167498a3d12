package bedrock

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
)

func encode(t testing.TB, msgs ...eventstream.Message) []byte {
	var b bytes.Buffer
	enc := eventstream.NewEncoder()
	for _, m := range msgs {
		if err := enc.Encode(&b, m); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

func message(kind string, headers map[string]string, payload string) eventstream.Message {
	m := eventstream.Message{Payload: []byte(payload)}
	m.Headers.Set(":message-type", eventstream.StringValue(kind))
	for k, v := range headers {
		m.Headers.Set(k, eventstream.StringValue(v))
	}
	return m
}

func chunk(event string) eventstream.Message {
	p, _ := json.Marshal(map[string]string{"bytes": base64.StdEncoding.EncodeToString([]byte(event))})
	return message("event", map[string]string{":event-type": "chunk"}, string(p))
}

func TestEventReader(t *testing.T) {
	tests := []struct {
		name    string
		in      []eventstream.Message
		want    string
		wantErr string
	}{
		{name: "chunks become events named by their type",
			in:   []eventstream.Message{chunk(`{"type":"message_start"}`), chunk(`{"type":"message_stop"}`)},
			want: "event: message_start\ndata: {\"type\":\"message_start\"}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"},
		{name: "Bedrock's own events are skipped",
			in:   []eventstream.Message{message("event", map[string]string{":event-type": "metrics"}, `{}`)},
			want: ""},
		{name: "an exception is the API's error event",
			in:   []eventstream.Message{message("exception", map[string]string{":exception-type": "validationException"}, `{"message":"bad input"}`)},
			want: `event: error` + "\n" + `data: {"error":{"message":"validationException: bad input","type":"invalid_request_error"},"type":"error"}` + "\n\n"},
		{name: "a chunk that is not an event", in: []eventstream.Message{chunk(`[1]`)}, wantErr: "a chunk that is not an API event"},
		{name: "a chunk that is not base64", in: []eventstream.Message{message("event", map[string]string{":event-type": "chunk"}, `{"bytes":"%%"}`)}, wantErr: "chunk:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := io.ReadAll(newEventReader(io.NopCloser(bytes.NewReader(encode(t, tt.in...)))))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Errorf("got %q, %v\nwant %q", got, err, tt.want)
			}
		})
	}
	// A stream cut inside a message is an error, never a silent end.
	whole := encode(t, chunk(`{"type":"message_start"}`))
	if _, err := io.ReadAll(newEventReader(io.NopCloser(bytes.NewReader(whole[:len(whole)-3])))); err == nil {
		t.Error("a truncated message read as a clean end")
	}
}

// FuzzEventReader: any bytes either translate or fail; never a panic, and whatever is emitted
// is whole SSE events.
func FuzzEventReader(f *testing.F) {
	if _, err := os.Stat(filepath.Join("testdata", "fuzz", "FuzzEventReader")); err != nil {
		f.Fatal("the committed seed corpus is missing: ", err)
	}
	f.Add(encode(f, chunk(`{"type":"message_start"}`), message("exception", map[string]string{":exception-type": "x"}, `{}`)))
	f.Fuzz(func(t *testing.T, data []byte) {
		out, _ := io.ReadAll(newEventReader(io.NopCloser(bytes.NewReader(data))))
		if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n\n")) {
			t.Fatalf("a partial event: %q", out)
		}
	})
}
