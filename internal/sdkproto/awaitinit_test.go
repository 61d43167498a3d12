package sdkproto

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

// allLines reads every line a Server would see.
func allLines(t *testing.T, r io.Reader) []string {
	t.Helper()
	lr := newLineReader(r)
	var out []string
	for {
		line, err := lr.next()
		if errors.Is(err, errLineTooLong) {
			continue
		}
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(line))
	}
}

func TestReadInitialize(t *testing.T) {
	init := `{"type":"control_request","request_id":"1","request":{"subtype":"initialize","mcpServers":{"srv":{"command":"x"}}}}`
	for _, tt := range []struct {
		name, input, servers string
	}{
		{name: "the servers of the initialize request", input: init + "\n" + promptLine, servers: `{"srv":{"command":"x"}}`},
		{name: "lines before it are replayed", input: "junk\n" + controlLine("0", `{"subtype":"mcp_status"}`) + init + "\n", servers: `{"srv":{"command":"x"}}`},
		{name: "an initialize without servers", input: controlLine("1", `{"subtype":"initialize","mcpServers":null}`) + promptLine},
		{name: "a prompt first stops the reading", input: promptLine + init + "\n"},
		{name: "no initialize at all", input: controlLine("0", `{"subtype":"mcp_status"}`)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ReadInitialize(strings.NewReader(tt.input))
			if err != nil {
				t.Fatal(err)
			}
			if string(p.MCPServers) != tt.servers {
				t.Errorf("servers %s, want %s", p.MCPServers, tt.servers)
			}
			got, want := allLines(t, p.In), allLines(t, strings.NewReader(tt.input))
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("replayed %q, want %q", got, want)
			}
		})
	}
}

// FuzzReadInitialize checks that reading ahead for the initialize request loses and adds
// nothing: the Server sees the same lines, and servers come only from an initialize request.
func FuzzReadInitialize(f *testing.F) {
	for _, s := range []string{
		`{"type":"control_request","request_id":"1","request":{"subtype":"initialize","mcpServers":{"s":{"command":"x"}}}}` + "\n" + promptLine,
		"\n\n" + `{"type":"control_request","request_id":"1","request":{"subtype":"initialize","mcpServers":[1]}}`,
		promptLine + `{"type":"control_request","request_id":"1","request":{"subtype":"initialize","mcpServers":{}}}`,
		`{"type":"control_request","request":"initialize"}` + "\n" + `not json` + "\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		p, err := ReadInitialize(bytes.NewReader(input))
		if err != nil {
			t.Fatal(err)
		}
		got, want := allLines(t, p.In), allLines(t, bytes.NewReader(input))
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("replayed %q, want %q", got, want)
		}
		if p.MCPServers != nil {
			if !json.Valid(p.MCPServers) || !bytes.Contains(input, []byte("initialize")) {
				t.Fatalf("servers %q from %q", p.MCPServers, input)
			}
		}
	})
}
