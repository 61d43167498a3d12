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
		name, input, servers, plugins string
	}{
		{name: "the plugins of the initialize request", input: controlLine("1", `{"subtype":"initialize","plugins":[{"type":"local","path":"/p"}]}`) + promptLine,
			plugins: `[{"type":"local","path":"/p"}]`},
		{name: "plugins after a prompt are not read", input: promptLine + controlLine("1", `{"subtype":"initialize","plugins":[{"type":"local","path":"/p"}]}`)},
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
			if string(p.Plugins) != tt.plugins {
				t.Errorf("plugins %s, want %s", p.Plugins, tt.plugins)
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

func TestParsePlugins(t *testing.T) {
	for _, tt := range []struct {
		name, raw string
		paths     []string
		wantErr   string
	}{
		{name: "local plugins in order", raw: `[{"type":"local","path":"./a"},{"type":"local","path":"/b","skipMcpDiscovery":false}]`, paths: []string{"./a", "/b"}},
		{name: "an empty list", raw: `[]`, paths: []string{}},
		{name: "not a list", raw: `{"type":"local"}`, wantErr: "initialize plugins: not a list"},
		{name: "another type", raw: `[{"type":"local","path":"a"},{"type":"git","path":"b"}]`, wantErr: `plugins[1]: type "git": reins loads local plugins only`},
		{name: "no type", raw: `[{"path":"a"}]`, wantErr: `plugins[0]: type "": reins loads local plugins only`},
		{name: "no path", raw: `[{"type":"local"}]`, wantErr: "plugins[0]: no path"},
		{name: "a field reins does not know", raw: `[{"type":"local","path":"a","version":"2"}]`, wantErr: `plugins[0]: json: unknown field "version"`},
		{name: "skipMcpDiscovery", raw: `[{"type":"local","path":"a","skipMcpDiscovery":true}]`, wantErr: "plugins[0] (a): skipMcpDiscovery is not supported by reins"},
		{name: "a path that is not a string", raw: `[{"type":"local","path":1}]`, wantErr: "plugins[0]: json: cannot unmarshal number"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParsePlugins(json.RawMessage(tt.raw))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			paths := []string{}
			for _, pc := range got {
				paths = append(paths, pc.Path)
			}
			if strings.Join(paths, "|") != strings.Join(tt.paths, "|") {
				t.Errorf("paths %q, want %q", paths, tt.paths)
			}
		})
	}
}

// FuzzParsePlugins checks that the plugins list is either refused or read whole: every entry
// a local plugin with a path, none dropped.
func FuzzParsePlugins(f *testing.F) {
	for _, s := range []string{`[{"type":"local","path":"./a"}]`, `[{"type":"local"}]`, `{}`, `[null]`, `[{"type":"local","path":"a","x":1}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, err := ParsePlugins(raw)
		if err != nil {
			return
		}
		var entries []json.RawMessage
		if json.Unmarshal(raw, &entries) != nil || len(entries) != len(got) {
			t.Fatalf("%d plugins read from %q", len(got), raw)
		}
		for _, pc := range got {
			if pc.Type != "local" || pc.Path == "" || pc.SkipMCPDiscovery {
				t.Fatalf("accepted %+v from %q", pc, raw)
			}
		}
	})
}
