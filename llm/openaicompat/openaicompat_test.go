package openaicompat

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/llmtest"
)

func newTestProvider(baseURL string, maxRetries int, sl *llmtest.Sleeps) *Provider {
	if sl == nil {
		sl = &llmtest.Sleeps{}
	}
	return New(Options{
		APIKey:     "sk-test",
		BaseURL:    baseURL,
		MaxRetries: maxRetries,
		Retry:      llm.RetryPolicy{Sleep: sl.Sleep, Jitter: func() float64 { return 0 }},
	})
}

func basicRequest(msgs ...llm.Message) *llm.Request {
	return &llm.Request{
		Model:     "gpt-test",
		System:    llm.SystemText("You are a test."),
		Messages:  msgs,
		MaxTokens: 1024,
		Tools: []llm.ToolSpec{{
			Name:        "Read",
			Description: "Reads a file.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"file_path":{"type":"string"}},"required":["file_path"]}`),
		}},
	}
}

func TestToolUseRoundTrip(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Text: []string{"Reading."}, ToolCalls: []llmtest.ToolCall{
			{ID: "call_A", Name: "Read", Input: `{"file_path":"/tmp/ü.txt"}`},
			{ID: "call_B", Name: "Read", Input: `{"file_path":"/tmp/b.txt"}`},
		}},
		llmtest.Say("Both ", "are empty."),
	)
	p := newTestProvider(srv.URL+"/v1", 0, nil)
	history := []llm.Message{llm.UserText("Read both files.")}
	resp, err := p.Stream(t.Context(), basicRequest(history...), nil)
	if err != nil {
		t.Fatal(err)
	}
	wantFirst := llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{
		llm.Text("Reading."),
		llm.ToolUse("call_A", "Read", json.RawMessage(`{"file_path":"/tmp/ü.txt"}`)),
		llm.ToolUse("call_B", "Read", json.RawMessage(`{"file_path":"/tmp/b.txt"}`)),
	}}
	if diff := cmp.Diff(wantFirst, resp.Message); diff != "" {
		t.Fatalf("first reply (-want +got):\n%s", diff)
	}
	if resp.StopReason != llm.StopToolUse || resp.Model != "gpt-test" || resp.ID != "chatcmpl-llmtest-1" {
		t.Errorf("stop %q model %q id %q", resp.StopReason, resp.Model, resp.ID)
	}

	history = append(history, resp.Message, llm.Message{Role: llm.RoleUser, Content: []llm.Block{
		llm.ToolResult("call_A", []llm.Block{llm.Text("")}, false),
		llm.ToolResult("call_B", []llm.Block{llm.Text("(empty)")}, true),
	}})
	resp, err = p.Stream(t.Context(), basicRequest(history...), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Text() != "Both are empty." || resp.StopReason != llm.StopEndTurn {
		t.Errorf("second reply %q (%s)", resp.Message.Text(), resp.StopReason)
	}

	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	var got struct {
		Messages []map[string]any `json:"messages"`
	}
	if err := reqs[1].Decode(&got); err != nil {
		t.Fatal(err)
	}
	var want struct {
		Messages []map[string]any `json:"messages"`
	}
	mustUnmarshal(t, `{"messages":[
		{"role":"system","content":"You are a test."},
		{"role":"user","content":"Read both files."},
		{"role":"assistant","content":"Reading.","tool_calls":[
			{"id":"call_A","type":"function","function":{"name":"Read","arguments":"{\"file_path\":\"/tmp/ü.txt\"}"}},
			{"id":"call_B","type":"function","function":{"name":"Read","arguments":"{\"file_path\":\"/tmp/b.txt\"}"}}]},
		{"role":"tool","tool_call_id":"call_A","content":""},
		{"role":"tool","tool_call_id":"call_B","content":"(empty)"}
	]}`, &want)
	if diff := cmp.Diff(want.Messages, got.Messages); diff != "" {
		t.Errorf("second request messages (-want +got):\n%s", diff)
	}
	results, err := reqs[1].ToolResults()
	if err != nil {
		t.Fatal(err)
	}
	wantResults := []llm.Block{
		llm.ToolResult("call_A", []llm.Block{llm.Text("")}, false),
		llm.ToolResult("call_B", []llm.Block{llm.Text("(empty)")}, false), // is_error does not travel
	}
	if diff := cmp.Diff(wantResults, results); diff != "" {
		t.Errorf("ToolResults (-want +got):\n%s", diff)
	}
	if h := reqs[0].Header.Get("Authorization"); h != "Bearer sk-test" {
		t.Errorf("Authorization = %q", h)
	}
}

func mustUnmarshal(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("bad test JSON: %v", err)
	}
}

func TestStreamEventsInOrder(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{
		Text:      []string{"a", "b"},
		ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "Glob", Input: `{"pattern":"**/*.go","path":"/src"}`}},
		Usage:     llm.Usage{InputTokens: 3, OutputTokens: 4},
	})
	var events []llm.Event
	resp, err := newTestProvider(srv.URL+"/v1", 0, nil).Stream(t.Context(), basicRequest(llm.UserText("go")),
		func(ev llm.Event) { events = append(events, ev) })
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.Event{
		{Type: llm.EventTextDelta, Index: 0, Text: "a"},
		{Type: llm.EventTextDelta, Index: 0, Text: "b"},
		{Type: llm.EventToolUseStart, Index: 1, ToolUseID: "c1", ToolName: "Glob"},
		{Type: llm.EventToolInputDelta, Index: 1, PartialJSON: `{"pattern":"**/*`},
		{Type: llm.EventToolInputDelta, Index: 1, PartialJSON: `.go","path":"/sr`},
		{Type: llm.EventToolInputDelta, Index: 1, PartialJSON: `c"}`},
		{Type: llm.EventMessageStop, StopReason: llm.StopToolUse, Usage: llm.Usage{InputTokens: 3, OutputTokens: 4}},
	}
	if diff := cmp.Diff(want, events); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	var acc llm.Accumulator
	for _, ev := range events {
		if err := acc.Add(ev); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(acc.Message(), resp.Message); diff != "" {
		t.Errorf("response differs from the events (-events +resp):\n%s", diff)
	}
}

func TestUsage(t *testing.T) {
	// Chat Completions counts cached tokens inside prompt_tokens; llm.Usage
	// keeps them apart.
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: []string{"x"}, StopReason: llm.StopMaxTokens,
		Usage: llm.Usage{InputTokens: 100, OutputTokens: 20, CacheReadInputTokens: 900}})
	resp, err := newTestProvider(srv.URL+"/v1", 0, nil).Stream(t.Context(), basicRequest(llm.UserText("go")), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Usage{InputTokens: 100, OutputTokens: 20, CacheReadInputTokens: 900}
	if resp.Usage != want || resp.StopReason != llm.StopMaxTokens {
		t.Errorf("usage %+v stop %q, want %+v max_tokens", resp.Usage, resp.StopReason, want)
	}
}

func TestRetries(t *testing.T) {
	tests := []struct {
		name       string
		maxRetries int
		turns      []llmtest.Turn
		wantServed int
		wantSleeps []time.Duration
		wantStatus int // -1: success
		wantText   string
	}{
		{"overloaded then success", 0, []llmtest.Turn{llmtest.Overloaded(), llmtest.Say("ok")},
			2, []time.Duration{500 * time.Millisecond}, -1, "ok"},
		{"429 retry-after then 503 then success", 0,
			[]llmtest.Turn{llmtest.RateLimited("2"), llmtest.Fail(503, "server_error", "busy"), llmtest.Say("ok")},
			3, []time.Duration{2 * time.Second, time.Second}, -1, "ok"},
		{"give up after 3", 3,
			[]llmtest.Turn{llmtest.Overloaded(), llmtest.Overloaded(), llmtest.Overloaded(), llmtest.Overloaded(), llmtest.Say("never")},
			4, []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second}, 529, ""},
		{"404 not retried", 0, []llmtest.Turn{llmtest.Fail(404, "invalid_request_error", "model not found"), llmtest.Say("never")},
			1, nil, 404, ""},
		{"in-stream error after text not retried", 0, []llmtest.Turn{
			{Text: []string{"half"}, Error: &llmtest.Failure{Type: "server_error", Message: "boom", InStream: true}},
			llmtest.Say("never")}, 1, nil, 0, "half"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewOpenAIServer(t, tt.turns...)
			sl := &llmtest.Sleeps{}
			var text strings.Builder
			resp, err := newTestProvider(srv.URL+"/v1", tt.maxRetries, sl).Stream(t.Context(), basicRequest(llm.UserText("go")),
				func(ev llm.Event) { text.WriteString(ev.Text) })
			if tt.wantStatus == -1 {
				if err != nil {
					t.Fatal(err)
				}
				if resp.Message.Text() != tt.wantText {
					t.Errorf("text %q, want %q", resp.Message.Text(), tt.wantText)
				}
			} else {
				var apiErr *llm.APIError
				if !errors.As(err, &apiErr) || apiErr.StatusCode != tt.wantStatus || apiErr.Provider != "openai" || apiErr.Message == "" {
					t.Fatalf("error = %#v, want APIError with status %d", err, tt.wantStatus)
				}
			}
			if text.String() != tt.wantText {
				t.Errorf("streamed %q, want %q", text.String(), tt.wantText)
			}
			if srv.Served() != tt.wantServed {
				t.Errorf("served %d, want %d", srv.Served(), tt.wantServed)
			}
			if diff := cmp.Diff(tt.wantSleeps, sl.Durations()); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCancellation(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: []string{"partial"}, Stall: true})
	p := newTestProvider(srv.URL+"/v1", 0, nil)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := p.Stream(ctx, basicRequest(llm.UserText("go")), func(ev llm.Event) {
			cancel()
		})
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("error = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Stream did not return after cancel")
	}
	if srv.Served() != 1 {
		t.Errorf("served %d, want 1", srv.Served())
	}
}

func TestNonStreamingServer(t *testing.T) {
	// A server that ignores "stream": true and answers with one completion.
	body := `{"id":"x1","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant",` +
		`"content":"Sure.","tool_calls":[{"id":"a","type":"function","function":{"name":"F","arguments":"{\"k\":1}"}},` +
		`{"type":"function","function":{"name":"G","arguments":{"z":true}}}]},"finish_reason":"tool_calls"}],` +
		`"usage":{"prompt_tokens":9,"completion_tokens":8,"total_tokens":17}}`
	srv := rawServer(t, 200, "application/json; charset=utf-8", body)
	var events []llm.Event
	resp, err := newTestProvider(srv.URL, -1, nil).Stream(t.Context(), basicRequest(llm.UserText("go")), func(ev llm.Event) { events = append(events, ev) })
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Message.Content) != 3 || resp.Message.Text() != "Sure." {
		t.Fatalf("message = %+v", resp.Message)
	}
	g := resp.Message.Content[2]
	if g.Name != "G" || string(g.Input) != `{"z":true}` || g.ID == "" {
		t.Errorf("second call = %+v", g)
	}
	if resp.Usage != (llm.Usage{InputTokens: 9, OutputTokens: 8}) || resp.StopReason != llm.StopToolUse || resp.ID != "x1" {
		t.Errorf("resp = %+v", resp)
	}
	if len(events) != 6 {
		t.Errorf("%d events, want 6 (text, 2×(start, input), stop)", len(events))
	}
}

func rawServer(t *testing.T, status int, contentType, body string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if contentType != "" {
			w.Header().Set("Content-Type", contentType)
		}
		w.Header().Set("X-Request-Id", "req_raw")
		w.Header().Set("Retry-After-Ms", "1500")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestHTTPErrors(t *testing.T) {
	tests := []struct {
		name     string
		status   int
		body     string
		wantType string
		wantMsg  string
	}{
		{"openai", 401, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
			"invalid_request_error", "Incorrect API key provided"},
		{"code only", 429, `{"error":{"message":"slow down","code":"rate_limit_exceeded"}}`, "rate_limit_exceeded", "slow down"},
		{"ollama", 404, `{"error":"model \"llama9\" not found, try pulling it first"}`, "", `model "llama9" not found, try pulling it first`},
		{"detail", 422, `{"detail":"Field required"}`, "", "Field required"},
		{"detail object", 422, `{"detail":[{"loc":["body","model"]}]}`, "", `[{"loc":["body","model"]}]`},
		{"message", 400, `{"message":"bad"}`, "", "bad"},
		{"html", 502, `<html>Bad Gateway</html>`, "", "<html>Bad Gateway</html>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := rawServer(t, tt.status, "application/json", tt.body)
			_, err := newTestProvider(srv.URL, -1, nil).Stream(t.Context(), basicRequest(llm.UserText("go")), nil)
			var apiErr *llm.APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("error %v is not an APIError", err)
			}
			want := &llm.APIError{Provider: "openai", StatusCode: tt.status, Type: tt.wantType, Message: tt.wantMsg,
				RequestID: "req_raw", RetryAfter: 1500 * time.Millisecond}
			if diff := cmp.Diff(want, apiErr); diff != "" {
				t.Errorf("APIError (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRequestTranslation(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.Say("ok"))
	temp := 0.5
	req := &llm.Request{
		Model:         "m",
		MaxTokens:     64,
		Temperature:   &temp,
		StopSequences: []string{"END"},
		System:        []llm.SystemBlock{{Text: "one"}, {Text: ""}, {Text: "two", CacheBreakpoint: true}},
		Tools:         []llm.ToolSpec{{Name: "T", Description: "d", InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false}`)}, {Name: "U"}},
		Messages: []llm.Message{
			{Role: llm.RoleUser, Content: []llm.Block{llm.Text("see"), llm.Image("image/png", "AAAA")}},
			{Role: llm.RoleAssistant, Content: []llm.Block{llm.ToolUse("t1", "T", nil)}},
			{Role: llm.RoleUser, Content: []llm.Block{
				llm.ToolResult("t1", []llm.Block{llm.Text("line1"), llm.Image("image/jpeg", "BBBB"), llm.Text("line2")}, false),
				llm.Text("now what?"),
			}},
		},
	}
	if _, err := newTestProvider(srv.URL+"/v1", 0, nil).Stream(t.Context(), req, nil); err != nil {
		t.Fatal(err)
	}
	var got, want map[string]any
	if err := srv.Requests()[0].Decode(&got); err != nil {
		t.Fatal(err)
	}
	mustUnmarshal(t, `{
		"model":"m","max_tokens":64,"temperature":0.5,"stop":["END"],"stream":true,"stream_options":{"include_usage":true},
		"tools":[
			{"type":"function","function":{"name":"T","description":"d","parameters":{"type":"object","additionalProperties":false}}},
			{"type":"function","function":{"name":"U","parameters":{"type":"object","properties":{}}}}],
		"messages":[
			{"role":"system","content":"one\n\ntwo"},
			{"role":"user","content":[{"type":"text","text":"see"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}]},
			{"role":"assistant","content":"","tool_calls":[{"id":"t1","type":"function","function":{"name":"T","arguments":"{}"}}]},
			{"role":"tool","tool_call_id":"t1","content":"line1\nline2"},
			{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,BBBB"}},{"type":"text","text":"now what?"}]}
		]}`, &want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
}

func TestMaxTokensParam(t *testing.T) {
	tests := []struct {
		opts Options
		want string
	}{
		{Options{}, "max_completion_tokens"},
		{Options{BaseURL: "https://api.openai.com/v1/"}, "max_completion_tokens"},
		{Options{BaseURL: "http://localhost:11434/v1"}, "max_tokens"},
		{Options{BaseURL: "http://localhost:8000/v1", MaxTokensParam: "max_completion_tokens"}, "max_completion_tokens"},
	}
	for _, tt := range tests {
		body, err := New(tt.opts).encodeRequest(&llm.Request{Model: "m", MaxTokens: 5})
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		json.Unmarshal(body, &m)
		if m[tt.want] != 5.0 || len(m) != 5 { // model, messages, stream, stream_options and the limit
			t.Errorf("New(%+v) request = %s, want %s", tt.opts, body, tt.want)
		}
	}
}

func TestRequestErrors(t *testing.T) {
	p := New(Options{BaseURL: "http://127.0.0.1:1"})
	tests := []struct {
		name string
		req  llm.Request
		want string
	}{
		{"no max tokens", llm.Request{}, "max tokens must be positive"},
		{"role", llm.Request{MaxTokens: 1, Messages: []llm.Message{{Role: "tool"}}}, `unknown role "tool"`},
		{"user block", llm.Request{MaxTokens: 1, Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{llm.ToolUse("a", "b", nil)}}}}, "unsupported block type"},
		{"assistant block", llm.Request{MaxTokens: 1, Messages: []llm.Message{{Role: llm.RoleAssistant, Content: []llm.Block{llm.Image("a", "b")}}}}, "unsupported block type"},
		{"result block", llm.Request{MaxTokens: 1, Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{
			llm.ToolResult("x", []llm.Block{llm.ToolResult("y", nil, false)}, false)}}}}, "unsupported content block"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := p.Stream(t.Context(), &tt.req, nil); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestHeadersAndNoKey(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.Say("ok"))
	p := New(Options{BaseURL: srv.URL + "/v1/", Header: http.Header{"X-Title": {"reins"}}, Name: "ollama"})
	if p.Name() != "ollama" {
		t.Errorf("Name() = %q", p.Name())
	}
	if _, err := p.Stream(t.Context(), basicRequest(llm.UserText("hi")), nil); err != nil {
		t.Fatal(err)
	}
	h := srv.Requests()[0].Header
	if h.Get("Authorization") != "" || h.Get("X-Title") != "reins" || h.Get("Content-Type") != "application/json" {
		t.Errorf("headers = %v", h)
	}
}

func TestOptionsFromEnv(t *testing.T) {
	env := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": "http://h/v1"}
	got := OptionsFromEnv(func(k string) string { return env[k] })
	if got.APIKey != "k" || got.BaseURL != "http://h/v1" {
		t.Errorf("OptionsFromEnv = %+v", got)
	}
	if got := OptionsFromEnv(func(string) string { return "" }); got.APIKey != "" || got.BaseURL != "" {
		t.Errorf("empty env gave %+v", got)
	}
}

func TestProbeOllama(t *testing.T) {
	handler := func(paths ...string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			for _, p := range paths {
				if r.URL.Path == p {
					io.WriteString(w, `{"models":[]}`)
					return
				}
			}
			http.NotFound(w, r)
		}
	}
	tags := httptest.NewServer(handler("/api/tags"))
	defer tags.Close()
	models := httptest.NewServer(handler("/v1/models"))
	defer models.Close()
	none := httptest.NewServer(handler())
	defer none.Close()
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer slow.Close()
	defer close(release)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedURL := "http://" + l.Addr().String()
	l.Close()

	tests := []struct {
		name string
		url  string
		want bool
	}{
		{"api/tags", tags.URL, true},
		{"v1 base URL", tags.URL + "/v1/", true},
		{"v1/models only", models.URL, true},
		{"not ollama", none.URL, false},
		{"nothing listening", closedURL, false},
		{"hangs", slow.URL, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			if got := ProbeOllama(t.Context(), tt.url); got != tt.want {
				t.Errorf("ProbeOllama(%s) = %v, want %v", tt.url, got, tt.want)
			}
			// A generous bound on the outcome: the probe gives up on a server that hangs.
			if d := time.Since(start); d > 30*time.Second {
				t.Errorf("the probe did not give up: %v", d)
			}
		})
	}
}

func BenchmarkStreamTurn(b *testing.B) {
	text := make([]string, 20)
	for i := range text {
		text[i] = "word "
	}
	srv := llmtest.NewOpenAIServer(b, llmtest.Turn{
		Text:      text,
		ToolCalls: []llmtest.ToolCall{{Name: "Read", Input: `{"file_path":"/some/where/in/the/tree/file.go","offset":10,"limit":200}`}},
	})
	srv.Repeat()
	p := newTestProvider(srv.URL+"/v1", 0, nil)
	req := basicRequest(llm.UserText("go"))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Stream(b.Context(), req, func(llm.Event) {}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeStream measures the client's side alone: SSE parsing,
// chunk decoding and assembly of the same turn as BenchmarkStreamTurn,
// from memory.
func BenchmarkDecodeStream(b *testing.B) {
	text := make([]string, 20)
	for i := range text {
		text[i] = "word "
	}
	srv := llmtest.NewOpenAIServer(b, llmtest.Turn{
		Text:      text,
		ToolCalls: []llmtest.ToolCall{{Name: "Read", Input: `{"file_path":"/some/where/in/the/tree/file.go","offset":10,"limit":200}`}},
	})
	resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"m","stream":true,"stream_options":{"include_usage":true}}`))
	if err != nil {
		b.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		d := newDecoder("bench", func(llm.Event) {})
		if err := d.decodeStream(bytes.NewReader(body)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStreamTurnRecorded is BenchmarkStreamTurn with the fake's
// formatting and per-event flushing taken out (see the Anthropic adapter's
// benchmark of the same name).
func BenchmarkStreamTurnRecorded(b *testing.B) {
	text := make([]string, 20)
	for i := range text {
		text[i] = "word "
	}
	fake := llmtest.NewOpenAIServer(b, llmtest.Turn{
		Text:      text,
		ToolCalls: []llmtest.ToolCall{{Name: "Read", Input: `{"file_path":"/some/where/in/the/tree/file.go","offset":10,"limit":200}`}},
	})
	resp, err := http.Post(fake.URL+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"m","stream":true,"stream_options":{"include_usage":true}}`))
	if err != nil {
		b.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(body)
	}))
	b.Cleanup(srv.Close)
	p := newTestProvider(srv.URL, 0, nil)
	req := basicRequest(llm.UserText("go"))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Stream(b.Context(), req, func(llm.Event) {}); err != nil {
			b.Fatal(err)
		}
	}
}
