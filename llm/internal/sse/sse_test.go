package sse

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// chunkReader returns its data in reads of size bytes, so that lines, line ends and
// events are cut across reads.
type chunkReader struct {
	data []byte
	size int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.data[:min(len(r.data), r.size)])
	r.data = r.data[n:]
	return n, nil
}

// readAll returns every event of r as "name|data".
func readAll(t testing.TB, r io.Reader, opts Options) []string {
	s := NewReader(r, opts)
	var out []string
	for i := 0; ; i++ {
		name, data, err := s.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		if i > 1_000_000 {
			t.Fatal("Reader does not make progress")
		}
		out = append(out, string(name)+"|"+string(data))
	}
}

var lenient = Options{BareJSON: true, Unterminated: true}

// TestReader covers the format as the standard has it, and what each leniency changes:
// lone CR line ends, a byte order mark, fields without a colon, data-less events, a last
// event without its blank line, bare JSON lines, and a line longer than the read buffer.
// Every input is read whole and in reads of 1, 2, 3 and 7 bytes.
func TestReader(t *testing.T) {
	long := strings.Repeat("x", 100_000)
	tests := []struct {
		name        string
		in          string
		want        []string // "name|data" per event, standard
		wantLenient []string // when it differs
	}{
		{"LF", "event: a\ndata: 1\n\n", []string{"a|1"}, nil},
		{"two events", "data: a\n\ndata: b\n\n", []string{"|a", "|b"}, nil},
		{"CRLF", "event: a\r\ndata: 1\r\n\r\n", []string{"a|1"}, nil},
		{"lone CR", "event: a\rdata: 1\rdata:2\r\revent: b\rdata: 3\r\r", []string{"a|1\n2", "b|3"}, nil},
		{"mixed", "event: a\r\ndata: 1\rdata: 2\n\r\n", []string{"a|1\n2"}, nil},
		{"CR then CRLF", "data: 1\r\r\n", []string{"|1"}, nil},
		{"BOM", "\ufeffevent: a\ndata: 1\n\n", []string{"a|1"}, nil},
		{"comment and unknown fields", ": hi\nid: 7\nretry: 10\nevent: a\nfoo: bar\ndata: 1\n\n", []string{"a|1"}, nil},
		{"one space stripped", "event:a\ndata:  two\n\n", []string{"a| two"}, nil},
		{"field without colon", "event: a\ndata\ndata\n\n", []string{"a|\n"}, nil},
		{"no data, no event", "event: a\n\nevent: b\ndata: 2\n\n", []string{"b|2"}, nil},
		{"empty data line dispatches", "event: a\ndata:\n\n", []string{"a|"}, nil},
		{"event name does not leak", "event: a\ndata: 1\n\ndata: 2\n\n", []string{"a|1", "|2"}, nil},
		{"unfinished last event", "event: a\ndata: 1\n\nevent: b\ndata: 2\n", []string{"a|1"}, []string{"a|1", "b|2"}},
		{"unfinished last line", "data: 1", nil, []string{"|1"}},
		{"unfinished after CR", "data: 1\r\rdata: 2\r", []string{"|1"}, []string{"|1", "|2"}},
		{"unfinished after CR, no end", "data: 1\r\rdata: 2", []string{"|1"}, []string{"|1", "|2"}},
		{"bare json", "{\"a\":1}\n{\"b\":2}\n", nil, []string{`|{"a":1}`, `|{"b":2}`}},
		{"bare json inside data", "data: 1\n{\"a\":1}\n\n", []string{"|1"}, nil},
		{"long line", "event: a\ndata: " + long + "\n\n", []string{"a|" + long}, nil},
		{"long last line", "data: " + long, nil, []string{"|" + long}},
		{"empty", "", nil, nil},
		{"blank lines", "\n\n\n", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, mode := range []struct {
				opts Options
				want []string
			}{{Options{}, tt.want}, {lenient, tt.wantLenient}} {
				if mode.opts == lenient && mode.want == nil {
					mode.want = tt.want
				}
				for _, size := range []int{1, 2, 3, 7, 1 << 20} {
					got := readAll(t, &chunkReader{data: []byte(tt.in), size: size}, mode.opts)
					if diff := cmp.Diff(mode.want, got); diff != "" {
						t.Fatalf("%+v, reads of %d bytes: events (-want +got):\n%s", mode.opts, size, diff)
					}
				}
			}
		})
	}
}

// TestLineLimit: a line that never ends is an error once past MaxLine, not a buffer that
// grows for ever.
func TestLineLimit(t *testing.T) {
	for _, opts := range []Options{{}, lenient} {
		r := NewReader(io.MultiReader(strings.NewReader("data: "), endless{}), opts)
		if _, _, err := r.Next(); err == nil || !strings.Contains(err.Error(), "longer than") {
			t.Fatalf("%+v: err = %v", opts, err)
		}
	}
}

type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "abc…"},
		{"aé", 2, "a…"}, // é is two bytes: not split
		{"éé", 3, "é…"},
		{"日本", 1, "…"},
	}
	for _, tt := range tests {
		if got := Truncate(tt.s, tt.n); got != tt.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}

// FuzzSSEReader checks that the reader never panics and that the events do not depend on
// how the input is split into reads, with and without the leniencies.
func FuzzSSEReader(f *testing.F) {
	for _, s := range []string{
		"data: a\n\n", "event: x\ndata: 1\ndata: 2\r\n\r\n", ": c\n{\"a\":1}\ndata", "data:\n\n\n", "\r\n\r",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, opts := range []Options{{}, lenient} {
			whole := readAll(t, bytes.NewReader(in), opts)
			bytewise := readAll(t, iotest.OneByteReader(bytes.NewReader(in)), opts)
			if diff := cmp.Diff(whole, bytewise); diff != "" {
				t.Errorf("%+v: events depend on read sizes (-whole +bytewise):\n%s", opts, diff)
			}
		}
	})
}
