package sdkproto

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"
)

// FuzzParseUserMessage checks that any user message is either refused with an error or becomes
// a message the model API accepts: a user message with valid blocks.
func FuzzParseUserMessage(f *testing.F) {
	for _, s := range []string{
		`{"role":"user","content":"hi"}`,
		`{"role":"user","content":[{"type":"text","text":"hi"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}]}`,
		`{"content":[{"type":"image","source":{"type":"url","url":"http://x"}}]}`,
		`{"role":"user","content":[]}`,
		`{"role":"user","content":null}`,
		`null`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		m, err := parseUserMessage(json.RawMessage(raw))
		if err != nil {
			return
		}
		if m.Role != "user" || len(m.Content) == 0 {
			t.Fatalf("accepted %s as %+v", raw, m)
		}
		for _, b := range m.Content {
			if err := b.Validate(); err != nil {
				t.Fatalf("accepted %s with an invalid block: %v", raw, err)
			}
		}
	})
}

// FuzzLineReader checks that the reader returns exactly the non-blank lines, trimmed.
func FuzzLineReader(f *testing.F) {
	f.Add([]byte("a\nb\n"))
	f.Add([]byte("\n\n  x  \r\ny"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		lr := newLineReader(bytes.NewReader(data))
		var got [][]byte
		for {
			line, err := lr.next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, line)
		}
		var want [][]byte
		for _, l := range bytes.Split(data, []byte("\n")) {
			if t := bytes.TrimSpace(l); len(t) > 0 {
				want = append(want, t)
			}
		}
		if len(got) != len(want) {
			t.Fatalf("%q: got %q, want %q", data, got, want)
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("%q: line %d %q, want %q", data, i, got[i], want[i])
			}
		}
	})
}
