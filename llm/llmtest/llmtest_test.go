package llmtest

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinsdev/reins/llm"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// exchange posts body to url+path and returns the status, selected headers
// and the raw response body.
func exchange(t *testing.T, url, path, body string) string {
	t.Helper()
	resp, err := http.Post(url+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "status: %d\n", resp.StatusCode)
	for _, h := range []string{"Content-Type", "Request-Id", "X-Request-Id", "Retry-After"} {
		if v := resp.Header.Get(h); v != "" {
			fmt.Fprintf(&b, "%s: %s\n", h, v)
		}
	}
	b.WriteString("\n")
	b.Write(data)
	return b.String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

func TestWireFormat(t *testing.T) {
	tools := Turn{
		Text:      []string{"Hello", ", wörld"},
		ToolCalls: []ToolCall{{Name: "Read", Input: `{"file_path":"/tmp/ünïcode/path.txt"}`}, {ID: "given", Name: "Noop", Input: `{}`}},
		Usage:     llm.Usage{InputTokens: 25, OutputTokens: 31, CacheReadInputTokens: 100, CacheCreationInputTokens: 7},
	}
	const anthropicReq = `{"model":"claude-x","max_tokens":10,"stream":true,"messages":[]}`
	const openAIReq = `{"model":"gpt-x","stream":true,"stream_options":{"include_usage":true},"messages":[]}`
	tests := []struct {
		name   string
		openai bool
		turn   Turn
		path   string
		body   string
	}{
		{"anthropic_tools", false, tools, "/v1/messages", anthropicReq},
		{"anthropic_text_max_tokens", false, Turn{Text: []string{"cut <b> & \"more\""}, StopReason: llm.StopMaxTokens}, "/v1/messages", anthropicReq},
		{"anthropic_overloaded", false, Overloaded(), "/v1/messages", anthropicReq},
		{"anthropic_rate_limited", false, RateLimited("12"), "/v1/messages", anthropicReq},
		{"anthropic_error_in_stream", false, Turn{Text: []string{"par"}, Error: &Failure{Type: "overloaded_error", Message: "Overloaded", InStream: true}}, "/v1/messages", anthropicReq},
		{"anthropic_not_streaming", false, Say("x"), "/v1/messages", `{"model":"m","max_tokens":1}`},
		{"anthropic_wrong_path", false, Say("x"), "/v1/complete", anthropicReq},
		{"openai_tools", true, tools, "/v1/chat/completions", openAIReq},
		{"openai_text_no_usage", true, Say("a", "b"), "/v1/chat/completions", `{"model":"gpt-x","stream":true}`},
		{"openai_not_streaming", true, tools, "/v1/chat/completions", `{"model":"gpt-x"}`},
		{"openai_rate_limited", true, RateLimited("3"), "/v1/chat/completions", openAIReq},
		{"openai_error_in_stream", true, Turn{Text: []string{"par"}, Error: &Failure{Type: "server_error", Message: "boom", InStream: true}}, "/v1/chat/completions", openAIReq},
		{"openai_wrong_path", true, Say("x"), "/chat/completions", openAIReq},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s *Server
			if tt.openai {
				s = NewOpenAIServer(t, tt.turn)
			} else {
				s = NewAnthropicServer(t, tt.turn)
			}
			golden(t, tt.name, exchange(t, s.URL, tt.path, tt.body))
			if got := len(s.Requests()); got != 1 {
				t.Errorf("%d requests recorded, want 1", got)
			}
		})
	}
}

func TestRequestsRecorded(t *testing.T) {
	s := NewAnthropicServer(t, Say("1"), Say("2"))
	for i := range 2 {
		resp, err := http.Post(s.URL+"/v1/messages?beta=true", "application/json",
			strings.NewReader(fmt.Sprintf(`{"model":"m","stream":true,"n":%d}`, i)))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	reqs := s.Requests()
	if len(reqs) != 2 || s.Served() != 2 {
		t.Fatalf("%d requests, %d served", len(reqs), s.Served())
	}
	for i, r := range reqs {
		var body struct{ N int }
		if err := r.Decode(&body); err != nil || body.N != i {
			t.Errorf("request %d body %s (%v)", i, r.Body, err)
		}
		if r.Method != "POST" || r.Path != "/v1/messages" || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("request %d: %s %s %v", i, r.Method, r.Path, r.Header)
		}
	}
}

// errorsTB captures Errorf calls instead of failing the test.
type errorsTB struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (e *errorsTB) Errorf(format string, args ...any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.errs = append(e.errs, fmt.Sprintf(format, args...))
}

func TestScriptExhausted(t *testing.T) {
	for _, newServer := range []func(testing.TB, ...Turn) *Server{NewAnthropicServer, NewOpenAIServer} {
		tb := &errorsTB{TB: t}
		s := newServer(tb, Say("only"))
		path := "/v1/messages"
		if s.api == "openai" {
			path = "/v1/chat/completions"
		}
		for range 2 {
			resp, err := http.Post(s.URL+path, "application/json", strings.NewReader(`{"model":"m","stream":true}`))
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 && resp.StatusCode != 500 {
				t.Errorf("status %d", resp.StatusCode)
			}
		}
		tb.mu.Lock()
		if len(tb.errs) != 1 || !strings.Contains(tb.errs[0], "script has only 1 turns") {
			t.Errorf("%s: errors = %q", s.api, tb.errs)
		}
		tb.mu.Unlock()
	}
}

func TestRepeat(t *testing.T) {
	s := NewOpenAIServer(t, Say("a"), Say("b"))
	s.Repeat()
	var got []string
	for range 5 {
		resp, err := http.Post(s.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m","stream":true}`))
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		switch {
		case bytes.Contains(data, []byte(`"content":"a"`)):
			got = append(got, "a")
		case bytes.Contains(data, []byte(`"content":"b"`)):
			got = append(got, "b")
		}
	}
	if diff := cmp.Diff([]string{"a", "b", "a", "b", "a"}, got); diff != "" {
		t.Errorf("turns (-want +got):\n%s", diff)
	}
	if len(s.Requests()) != 0 || s.Served() != 5 {
		t.Errorf("Repeat kept %d requests, served %d", len(s.Requests()), s.Served())
	}
}

func TestToolResults(t *testing.T) {
	tests := []struct {
		name string
		api  string
		body string
		want []llm.Block
	}{
		{"anthropic blocks", "anthropic", `{"messages":[
			{"role":"user","content":"hi"},
			{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"X","input":{}}]},
			{"role":"user","content":[
				{"type":"tool_result","tool_use_id":"a","is_error":true,"content":[{"type":"text","text":"bad"},
					{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA=="}}]},
				{"type":"tool_result","tool_use_id":"b","content":"plain"},
				{"type":"tool_result","tool_use_id":"c"},
				{"type":"text","text":"ignored"}]}]}`,
			[]llm.Block{
				llm.ToolResult("a", []llm.Block{llm.Text("bad"), llm.Image("image/png", "AA==")}, true),
				llm.ToolResult("b", []llm.Block{llm.Text("plain")}, false),
				llm.ToolResult("c", nil, false),
			}},
		{"anthropic none", "anthropic", `{"messages":[{"role":"user","content":"hi"}]}`, nil},
		{"openai", "openai", `{"messages":[
			{"role":"user","content":"hi"},
			{"role":"assistant","content":"","tool_calls":[]},
			{"role":"tool","tool_call_id":"a","content":"one"},
			{"role":"tool","tool_call_id":"b","content":[{"type":"text","text":"tw"},{"type":"text","text":"o"}]},
			{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,AA=="}}]}]}`,
			[]llm.Block{
				llm.ToolResult("a", []llm.Block{llm.Text("one")}, false),
				llm.ToolResult("b", []llm.Block{llm.Text("two")}, false),
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Request{Body: []byte(tt.body), api: tt.api}.ToolResults()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ToolResults (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSplitRunes(t *testing.T) {
	for _, s := range []string{"", "abc", strings.Repeat("ü", 20), "a€€€€€€€€b", strings.Repeat("x", 33)} {
		parts := splitRunes(s, 16)
		if strings.Join(parts, "") != s {
			t.Errorf("splitRunes(%q) lost data: %q", s, parts)
		}
		for _, p := range parts {
			if len(p) > 16 || !utf8Valid(p) {
				t.Errorf("splitRunes(%q): bad piece %q", s, p)
			}
		}
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }
