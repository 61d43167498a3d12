package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/llmtest"
)

func newTestProvider(url string, maxRetries int, sl *llmtest.Sleeps) *Provider {
	if sl == nil {
		sl = &llmtest.Sleeps{}
	}
	return New(Options{
		APIKey:     "test-key",
		BaseURL:    url,
		MaxRetries: maxRetries,
		Retry:      llm.RetryPolicy{Sleep: sl.Sleep, Jitter: func() float64 { return 0 }},
	})
}

func basicRequest(msgs ...llm.Message) *llm.Request {
	return &llm.Request{
		Model:     "claude-test-1",
		System:    llm.SystemText("You are a test."),
		Messages:  msgs,
		MaxTokens: 1024,
		Tools: []llm.ToolSpec{{
			Name:        "Read",
			Description: "Reads a file.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"file_path":{"type":"string"}},"required":["file_path"],"additionalProperties":false}`),
		}},
	}
}

func TestToolUseRoundTrip(t *testing.T) {
	srv := llmtest.NewAnthropicServer(t,
		llmtest.Turn{Text: []string{"Let me read it."}, ToolCalls: []llmtest.ToolCall{{ID: "toolu_A", Name: "Read", Input: `{"file_path":"/tmp/ü.txt"}`}}},
		llmtest.Say("The file says ", "hello."),
	)
	p := newTestProvider(srv.URL, 0, nil)
	history := []llm.Message{llm.UserText("What is in /tmp/ü.txt?")}

	resp, err := p.Stream(t.Context(), basicRequest(history...), nil)
	if err != nil {
		t.Fatal(err)
	}
	wantFirst := llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{
		llm.Text("Let me read it."),
		llm.ToolUse("toolu_A", "Read", json.RawMessage(`{"file_path":"/tmp/ü.txt"}`)),
	}}
	if diff := cmp.Diff(wantFirst, resp.Message); diff != "" {
		t.Fatalf("first reply (-want +got):\n%s", diff)
	}
	if resp.StopReason != llm.StopToolUse || resp.Model != "claude-test-1" || resp.ID != "msg_llmtest_1" {
		t.Errorf("first reply: stop %q, model %q, id %q", resp.StopReason, resp.Model, resp.ID)
	}

	result := llm.ToolResult("toolu_A", []llm.Block{llm.Text("hello")}, false)
	history = append(history, resp.Message, llm.Message{Role: llm.RoleUser, Content: []llm.Block{result}})
	resp, err = p.Stream(t.Context(), basicRequest(history...), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Message.Text(); got != "The file says hello." || resp.StopReason != llm.StopEndTurn {
		t.Errorf("second reply = %q (%s)", got, resp.StopReason)
	}

	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("server got %d requests, want 2", len(reqs))
	}
	results, err := reqs[1].ToolResults()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]llm.Block{result}, results); diff != "" {
		t.Errorf("tool results sent back (-want +got):\n%s", diff)
	}
	// The assistant turn goes back exactly, tool input included.
	var body struct {
		Messages []struct {
			Role    string            `json:"role"`
			Content []json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := reqs[1].Decode(&body); err != nil {
		t.Fatal(err)
	}
	if len(body.Messages) != 3 || body.Messages[1].Role != "assistant" {
		t.Fatalf("second request messages: %+v", body.Messages)
	}
	var use map[string]any
	if err := json.Unmarshal(body.Messages[1].Content[1], &use); err != nil {
		t.Fatal(err)
	}
	wantUse := map[string]any{"type": "tool_use", "id": "toolu_A", "name": "Read", "input": map[string]any{"file_path": "/tmp/ü.txt"}}
	if diff := cmp.Diff(wantUse, use); diff != "" {
		t.Errorf("tool_use sent back (-want +got):\n%s", diff)
	}
	if got := reqs[0].Header.Get("Authorization"); got != "Bearer test-key" {
		t.Errorf("Authorization header = %q", got)
	}
}

func TestStreamEventsInOrder(t *testing.T) {
	srv := llmtest.NewAnthropicServer(t, llmtest.Turn{
		Text: []string{"a", "b", "c"},
		ToolCalls: []llmtest.ToolCall{
			{ID: "t1", Name: "Glob", Input: `{"pattern":"**/*.go","path":"/src/very/long/directory"}`},
			{ID: "t2", Name: "Noop", Input: `{}`},
		},
		Usage: llm.Usage{InputTokens: 7, OutputTokens: 9},
	})
	p := newTestProvider(srv.URL, 0, nil)
	var events []llm.Event
	resp, err := p.Stream(t.Context(), basicRequest(llm.UserText("go")), func(ev llm.Event) { events = append(events, ev) })
	if err != nil {
		t.Fatal(err)
	}
	// The fake cuts input JSON into 16-byte pieces, as the API cuts it.
	want := []llm.Event{
		{Type: llm.EventMessageStart, MessageID: "msg_llmtest_1", Model: "claude-test-1", Usage: llm.Usage{InputTokens: 7, OutputTokens: 1}},
		{Type: llm.EventTextDelta, Index: 0, Text: "a"},
		{Type: llm.EventTextDelta, Index: 0, Text: "b"},
		{Type: llm.EventTextDelta, Index: 0, Text: "c"},
		{Type: llm.EventToolUseStart, Index: 1, ToolUseID: "t1", ToolName: "Glob"},
		{Type: llm.EventToolInputDelta, Index: 1, PartialJSON: `{"pattern":"**/*`},
		{Type: llm.EventToolInputDelta, Index: 1, PartialJSON: `.go","path":"/sr`},
		{Type: llm.EventToolInputDelta, Index: 1, PartialJSON: `c/very/long/dire`},
		{Type: llm.EventToolInputDelta, Index: 1, PartialJSON: `ctory"}`},
		{Type: llm.EventToolUseStart, Index: 2, ToolUseID: "t2", ToolName: "Noop"},
		{Type: llm.EventToolInputDelta, Index: 2, PartialJSON: `{}`},
		{Type: llm.EventMessageStop, StopReason: llm.StopToolUse, Usage: llm.Usage{InputTokens: 7, OutputTokens: 9}},
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
		t.Errorf("response differs from what the events describe (-events +resp):\n%s", diff)
	}
}

func TestUsage(t *testing.T) {
	want := llm.Usage{InputTokens: 12, OutputTokens: 345, CacheReadInputTokens: 6789, CacheCreationInputTokens: 1011}
	srv := llmtest.NewAnthropicServer(t, llmtest.Turn{Text: []string{"x"}, Usage: want, StopReason: llm.StopMaxTokens})
	resp, err := newTestProvider(srv.URL, 0, nil).Stream(t.Context(), basicRequest(llm.UserText("go")), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Usage != want || resp.StopReason != llm.StopMaxTokens {
		t.Errorf("usage %+v, stop %q; want %+v, max_tokens", resp.Usage, resp.StopReason, want)
	}
}

func TestRetries(t *testing.T) {
	overloadedInStream := llmtest.Turn{Error: &llmtest.Failure{Type: "overloaded_error", Message: "Overloaded", InStream: true}}
	tests := []struct {
		name       string
		maxRetries int
		turns      []llmtest.Turn
		wantServed int
		wantSleeps []time.Duration
		wantStatus int    // of the *llm.APIError; -1 means success
		wantType   string // of the *llm.APIError
		wantText   string // on success, or the partial text seen before the error
	}{
		{
			name:       "overloaded then success",
			turns:      []llmtest.Turn{llmtest.Overloaded(), llmtest.Say("ok")},
			wantServed: 2, wantSleeps: []time.Duration{500 * time.Millisecond}, wantStatus: -1, wantText: "ok",
		},
		{
			name:       "429 with retry-after",
			turns:      []llmtest.Turn{llmtest.RateLimited("3"), llmtest.Overloaded(), llmtest.Say("ok")},
			wantServed: 3, wantSleeps: []time.Duration{3 * time.Second, time.Second}, wantStatus: -1, wantText: "ok",
		},
		{
			name:       "500 then success",
			turns:      []llmtest.Turn{llmtest.Fail(500, "api_error", "Internal server error"), llmtest.Say("ok")},
			wantServed: 2, wantSleeps: []time.Duration{500 * time.Millisecond}, wantStatus: -1, wantText: "ok",
		},
		{
			name:       "overloaded event before content",
			turns:      []llmtest.Turn{overloadedInStream, llmtest.Say("ok")},
			wantServed: 2, wantSleeps: []time.Duration{500 * time.Millisecond}, wantStatus: -1, wantText: "ok",
		},
		{
			name:       "give up after 2",
			maxRetries: 2,
			turns:      []llmtest.Turn{llmtest.Overloaded(), llmtest.Overloaded(), llmtest.Overloaded(), llmtest.Say("never")},
			wantServed: 3, wantSleeps: []time.Duration{500 * time.Millisecond, time.Second},
			wantStatus: 529, wantType: "overloaded_error",
		},
		{
			name:       "give up after default 4",
			turns:      []llmtest.Turn{llmtest.Overloaded(), llmtest.Overloaded(), llmtest.Overloaded(), llmtest.Overloaded(), llmtest.Overloaded()},
			wantServed: 5, wantSleeps: []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second},
			wantStatus: 529, wantType: "overloaded_error",
		},
		{
			name:       "400 is not retried",
			turns:      []llmtest.Turn{llmtest.Fail(400, "invalid_request_error", "messages: field required"), llmtest.Say("never")},
			wantServed: 1, wantStatus: 400, wantType: "invalid_request_error",
		},
		{
			name:       "401 is not retried",
			turns:      []llmtest.Turn{llmtest.Fail(401, "authentication_error", "invalid x-api-key"), llmtest.Say("never")},
			wantServed: 1, wantStatus: 401, wantType: "authentication_error",
		},
		{
			name: "overloaded after content is not retried",
			turns: []llmtest.Turn{
				{Text: []string{"half"}, Error: &llmtest.Failure{Type: "overloaded_error", Message: "Overloaded", InStream: true}},
				llmtest.Say("never"),
			},
			wantServed: 1, wantStatus: 0, wantType: "overloaded_error", wantText: "half",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewAnthropicServer(t, tt.turns...)
			sl := &llmtest.Sleeps{}
			p := newTestProvider(srv.URL, tt.maxRetries, sl)
			var text strings.Builder
			resp, err := p.Stream(t.Context(), basicRequest(llm.UserText("go")), func(ev llm.Event) { text.WriteString(ev.Text) })
			if tt.wantStatus == -1 {
				if err != nil {
					t.Fatalf("Stream: %v", err)
				}
				if resp.Message.Text() != tt.wantText {
					t.Errorf("text = %q, want %q", resp.Message.Text(), tt.wantText)
				}
			} else {
				var apiErr *llm.APIError
				if !errors.As(err, &apiErr) {
					t.Fatalf("Stream error = %v (%T), want *llm.APIError", err, err)
				}
				if apiErr.StatusCode != tt.wantStatus || apiErr.Type != tt.wantType || apiErr.Provider != "anthropic" {
					t.Errorf("APIError = %+v, want status %d type %q", apiErr, tt.wantStatus, tt.wantType)
				}
				if apiErr.Message == "" {
					t.Errorf("APIError has no message: %v", apiErr)
				}
				if resp != nil {
					t.Errorf("response %+v returned with error", resp)
				}
			}
			if got := text.String(); got != tt.wantText {
				t.Errorf("streamed text = %q, want %q", got, tt.wantText)
			}
			if got := srv.Served(); got != tt.wantServed {
				t.Errorf("server played %d turns, want %d", got, tt.wantServed)
			}
			if diff := cmp.Diff(tt.wantSleeps, sl.Durations()); diff != "" {
				t.Errorf("retry waits (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRetryAfterOnError(t *testing.T) {
	srv := llmtest.NewAnthropicServer(t, llmtest.RateLimited("17"))
	_, err := newTestProvider(srv.URL, -1, nil).Stream(t.Context(), basicRequest(llm.UserText("go")), nil)
	var apiErr *llm.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 429 || apiErr.RetryAfter != 17*time.Second || apiErr.RequestID != "req_llmtest_1" {
		t.Fatalf("error = %#v", err)
	}
	if !strings.Contains(err.Error(), "429") || !strings.Contains(err.Error(), "rate_limit_error") {
		t.Errorf("error text %q lacks status or type", err)
	}
}

func TestCancellation(t *testing.T) {
	srv := llmtest.NewAnthropicServer(t, llmtest.Turn{Text: []string{"partial"}, Stall: true})
	p := newTestProvider(srv.URL, 0, nil)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := p.Stream(ctx, basicRequest(llm.UserText("go")), func(ev llm.Event) {
			if ev.Type == llm.EventTextDelta {
				cancel()
			}
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
		t.Errorf("cancelled stream was retried: %d turns played", srv.Served())
	}
}

// cacheControlPaths returns the JSON paths in the request body that carry
// cache_control.
func cacheControlPaths(t *testing.T, r llmtest.Request) []string {
	t.Helper()
	var body map[string]any
	if err := r.Decode(&body); err != nil {
		t.Fatal(err)
	}
	var paths []string
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			if cc, ok := v["cache_control"]; ok {
				if m, _ := cc.(map[string]any); m["type"] != "ephemeral" {
					t.Errorf("%s.cache_control = %v", path, cc)
				}
				paths = append(paths, path)
			}
			for k, e := range v {
				if k != "cache_control" && k != "input_schema" {
					walk(path+"."+k, e)
				}
			}
		case []any:
			for i, e := range v {
				walk(fmt.Sprintf("%s[%d]", path, i), e)
			}
		}
	}
	walk("", body)
	return paths
}

func TestCacheControlPlacement(t *testing.T) {
	tool := func(name string) llm.ToolSpec {
		return llm.ToolSpec{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}
	}
	conversation := []llm.Message{
		llm.UserText("first question"),
		{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("calling"), llm.ToolUse("t1", "A", nil)}},
		{Role: llm.RoleUser, Content: []llm.Block{
			llm.ToolResult("t1", []llm.Block{llm.Text("out")}, false),
			llm.Text("and also this"),
		}},
	}
	tests := []struct {
		name string
		req  llm.Request
		want []string
	}{
		{
			name: "auto",
			req: llm.Request{
				System:   []llm.SystemBlock{{Text: "static"}, {Text: "dynamic"}},
				Tools:    []llm.ToolSpec{tool("A"), tool("B")},
				Messages: conversation,
			},
			want: []string{".messages[2].content[1]", ".system[1]", ".tools[1]"},
		},
		{
			name: "last user message is a tool result",
			req: llm.Request{
				System: llm.SystemText("sys"),
				Messages: append(conversation[:2:2], llm.Message{Role: llm.RoleUser, Content: []llm.Block{
					llm.ToolResult("t1", []llm.Block{llm.Text("out")}, true)}}),
			},
			want: []string{".messages[2].content[0]", ".system[0]"},
		},
		{
			name: "assistant last",
			req:  llm.Request{Messages: conversation[:2]},
			want: []string{".messages[0].content[0]"},
		},
		{
			name: "explicit system breakpoint within the limit",
			req: llm.Request{
				System:   []llm.SystemBlock{{Text: "a", CacheBreakpoint: true}, {Text: "b", CacheBreakpoint: true}, {Text: "c"}},
				Tools:    []llm.ToolSpec{tool("A")},
				Messages: conversation,
			},
			// Four at most: tools, last system, last user, then the latest
			// explicit system block.
			want: []string{".messages[2].content[1]", ".system[1]", ".system[2]", ".tools[0]"},
		},
		{
			name: "off",
			req: llm.Request{
				System: llm.SystemText("sys"), Tools: []llm.ToolSpec{tool("A")}, Messages: conversation, Cache: llm.CacheOff,
			},
			want: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewAnthropicServer(t, llmtest.Say("ok"))
			req := tt.req
			req.Model, req.MaxTokens = "m", 100
			if _, err := newTestProvider(srv.URL, 0, nil).Stream(t.Context(), &req, nil); err != nil {
				t.Fatal(err)
			}
			got := cacheControlPaths(t, srv.Requests()[0])
			slices.Sort(got)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("cache_control paths (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRequestTranslation(t *testing.T) {
	srv := llmtest.NewAnthropicServer(t, llmtest.Say("ok"))
	temp := 0.25
	schema := `{"type":"object","$defs":{"p":{"type":"string"}},"properties":{"p":{"$ref":"#/$defs/p"}},"additionalProperties":false}`
	req := &llm.Request{
		Model:         "m",
		MaxTokens:     77,
		Temperature:   &temp,
		StopSequences: []string{"STOP"},
		Cache:         llm.CacheOff,
		System:        []llm.SystemBlock{{Text: ""}, {Text: "sys"}},
		Tools:         []llm.ToolSpec{{Name: "T", Description: "d", InputSchema: json.RawMessage(schema)}, {Name: "U"}},
		Messages: []llm.Message{
			{Role: llm.RoleUser, Content: []llm.Block{llm.Text("look"), llm.Text(""), llm.Image("image/png", "iVBORw0KGgo=")}},
			{Role: llm.RoleAssistant, Content: []llm.Block{llm.ToolUse("t1", "T", json.RawMessage(`{"p":"x"}`))}},
			{Role: llm.RoleUser, Content: []llm.Block{llm.ToolResult("t1", []llm.Block{
				llm.Text("failed"), llm.Image("image/jpeg", "/9j/"),
			}, true)}},
		},
	}
	if _, err := newTestProvider(srv.URL, 0, nil).Stream(t.Context(), req, nil); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := srv.Requests()[0].Decode(&got); err != nil {
		t.Fatal(err)
	}
	var want map[string]any
	wantJSON := `{
		"model": "m", "max_tokens": 77, "stream": true, "temperature": 0.25, "stop_sequences": ["STOP"],
		"system": [{"type": "text", "text": "sys"}],
		"tools": [
			{"name": "T", "description": "d", "input_schema": ` + schema + `},
			{"name": "U", "input_schema": {"type": "object"}}
		],
		"messages": [
			{"role": "user", "content": [
				{"type": "text", "text": "look"},
				{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
			]},
			{"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "T", "input": {"p": "x"}}]},
			{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "is_error": true, "content": [
				{"type": "text", "text": "failed"},
				{"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "/9j/"}}
			]}]}
		]
	}`
	if err := json.Unmarshal([]byte(wantJSON), &want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("request body (-want +got):\n%s", diff)
	}
}

func TestRequestErrors(t *testing.T) {
	p := New(Options{BaseURL: "http://127.0.0.1:1"})
	tests := []struct {
		name string
		req  llm.Request
		want string
	}{
		{"no max tokens", llm.Request{Model: "m"}, "max tokens must be positive"},
		{"bad role", llm.Request{Model: "m", MaxTokens: 1, Messages: []llm.Message{{Role: "system"}}}, `unknown role "system"`},
		{"bad block", llm.Request{Model: "m", MaxTokens: 1, Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{{Type: "video"}}}}}, `unsupported block type "video"`},
		{"bad result content", llm.Request{Model: "m", MaxTokens: 1, Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{
			llm.ToolResult("x", []llm.Block{llm.ToolUse("a", "b", nil)}, false)}}}}, "unsupported content block"},
		{"schema not JSON", llm.Request{Model: "m", MaxTokens: 1, Tools: []llm.ToolSpec{{Name: "Broken", InputSchema: json.RawMessage(`{"type":`)}}},
			"tool Broken: input schema"},
		{"thinking in a user message", llm.Request{Model: "m", MaxTokens: 1, Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{
			llm.Thinking("x", "s")}}}}, "message 0: thinking block in a user message"},
		{"redacted thinking in a user message", llm.Request{Model: "m", MaxTokens: 1, Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{
			llm.RedactedThinking("d")}}}}, "redacted_thinking block in a user message"},
		{"thinking budget too small", llm.Request{Model: "m", MaxTokens: 4096, ThinkingBudget: 100}, "below the minimum of 1024"},
		{"thinking budget over max tokens", llm.Request{Model: "m", MaxTokens: 2000, ThinkingBudget: 2000}, "less than max tokens 2000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := p.Stream(t.Context(), &tt.req, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// rawServer serves body, verbatim, as an SSE stream or with the given status.
func rawServer(t *testing.T, status int, contentType, body string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestStreamEdgeCases(t *testing.T) {
	const start = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\"," +
		"\"model\":\"m\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\n"
	const stop = "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null}," +
		"\"usage\":{\"input_tokens\":6,\"cache_read_input_tokens\":2,\"output_tokens\":3}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	block := func(i int, start, delta string) string {
		return fmt.Sprintf("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":%d,\"content_block\":%s}\n\n", i, start) +
			fmt.Sprintf("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":%d,\"delta\":%s}\n\n", i, delta) +
			fmt.Sprintf("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":%d}\n\n", i)
	}
	tests := []struct {
		name      string
		body      string
		wantMsg   llm.Message
		wantUsage llm.Usage
		wantErr   string
	}{
		{
			name: "thinking blocks are kept with their signatures, server tool blocks skipped",
			body: start +
				block(0, `{"type":"thinking","thinking":"","signature":""}`, `{"type":"thinking_delta","thinking":"hmm"}`) +
				block(1, `{"type":"text","text":""}`, `{"type":"text_delta","text":"hi"}`) +
				block(2, `{"type":"server_tool_use","id":"s","name":"web_search","input":{}}`, `{"type":"input_json_delta","partial_json":"{}"}`) +
				block(3, `{"type":"redacted_thinking","data":"EmwKAhgB"}`, `{"type":"thinking_delta","thinking":"ignored"}`) +
				block(4, `{"type":"thinking","thinking":"","signature":""}`, `{"type":"signature_delta","signature":"EqQB"}`) +
				block(5, `{"type":"tool_use","id":"t","name":"X","input":{}}`, `{"type":"input_json_delta","partial_json":"{\"a\":1}"}`) +
				stop,
			wantMsg: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{
				llm.Thinking("hmm", ""), llm.Text("hi"), llm.RedactedThinking("EmwKAhgB"), llm.Thinking("", "EqQB"),
				llm.ToolUse("t", "X", json.RawMessage(`{"a":1}`))}},
			// message_delta totals replace message_start's.
			wantUsage: llm.Usage{InputTokens: 6, OutputTokens: 3, CacheReadInputTokens: 2},
		},
		{
			name: "empty text block leaves no trace",
			body: start + block(0, `{"type":"text","text":""}`, `{"type":"text_delta","text":""}`) +
				block(1, `{"type":"tool_use","id":"t","name":"X","input":{}}`, `{"type":"input_json_delta","partial_json":""}`) + stop,
			wantMsg:   llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.ToolUse("t", "X", nil)}},
			wantUsage: llm.Usage{InputTokens: 6, OutputTokens: 3, CacheReadInputTokens: 2},
		},
		{
			name:    "ends before message_stop",
			body:    start + block(0, `{"type":"text","text":""}`, `{"type":"text_delta","text":"cut"}`),
			wantErr: "stream ended before message_stop",
		},
		{
			name:    "block out of order",
			body:    start + block(1, `{"type":"text","text":""}`, `{"type":"text_delta","text":"x"}`),
			wantErr: "block 1 started after 0 blocks",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := rawServer(t, 200, "text/event-stream", tt.body)
			resp, err := newTestProvider(srv.URL, -1, nil).Stream(t.Context(), basicRequest(llm.UserText("go")), nil)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantMsg, resp.Message); diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
			if resp.Usage != tt.wantUsage {
				t.Errorf("usage = %+v, want %+v", resp.Usage, tt.wantUsage)
			}
		})
	}
}

func TestNonJSONErrorBody(t *testing.T) {
	srv := rawServer(t, http.StatusBadGateway, "text/html", "<html>bad gateway</html>")
	_, err := newTestProvider(srv.URL, -1, nil).Stream(t.Context(), basicRequest(llm.UserText("go")), nil)
	var apiErr *llm.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 502 || !strings.Contains(apiErr.Message, "bad gateway") {
		t.Fatalf("error = %#v", err)
	}
	if !llm.IsRetryable(err) {
		t.Error("502 not retryable")
	}
}

func TestEnvironmentIgnored(t *testing.T) {
	// The SDK would read these; New must not.
	t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1")
	t.Setenv("ANTHROPIC_API_KEY", "env-key")
	srv := llmtest.NewAnthropicServer(t, llmtest.Say("ok"))
	if _, err := newTestProvider(srv.URL, 0, nil).Stream(t.Context(), basicRequest(llm.UserText("go")), nil); err != nil {
		t.Fatal(err)
	}
	if got := srv.Requests()[0].Header.Get("Authorization"); got != "Bearer test-key" {
		t.Errorf("Authorization = %q, want the key from Options", got)
	}
}

func TestOptionsFromEnv(t *testing.T) {
	tests := []struct {
		env     map[string]string
		want    Options
		headers http.Header
		err     string
	}{
		{env: map[string]string{}},
		{env: map[string]string{"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": "http://x"}, want: Options{APIKey: "k", BaseURL: "http://x"}},
		{env: map[string]string{"ANTHROPIC_AUTH_TOKEN": "tok"}, want: Options{APIKey: "tok"}},
		// Claude Code's ranking: the token wins over the key.
		{env: map[string]string{"ANTHROPIC_API_KEY": "k", "ANTHROPIC_AUTH_TOKEN": "tok"}, want: Options{APIKey: "tok"}},
		{env: map[string]string{"ANTHROPIC_CUSTOM_HEADERS": "X-Team: a\r\n\nX-Trace:  b c \nX-Team: d"},
			headers: http.Header{"X-Team": {"a", "d"}, "X-Trace": {"b c"}}},
		{env: map[string]string{"ANTHROPIC_CUSTOM_HEADERS": "X-Team a"}, err: "ANTHROPIC_CUSTOM_HEADERS line 1: want \"Name: Value\", found no colon"},
		{env: map[string]string{"ANTHROPIC_CUSTOM_HEADERS": "ok: 1\nBad Name: x"}, err: `ANTHROPIC_CUSTOM_HEADERS line 2: the header name is empty or holds a character a name may not`},
		{env: map[string]string{"ANTHROPIC_CUSTOM_HEADERS": ": x"}, err: `line 1: the header name is empty`},
		{env: map[string]string{"ANTHROPIC_CUSTOM_HEADERS": "X-Secret: a\x00b"}, err: "line 1: the value holds a control character"},
	}
	for _, tt := range tests {
		got, err := OptionsFromEnv(func(k string) string { return tt.env[k] })
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("OptionsFromEnv(%q) error = %v, want %q", tt.env, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("OptionsFromEnv(%q): %v", tt.env, err)
			continue
		}
		if got.APIKey != tt.want.APIKey || got.BaseURL != tt.want.BaseURL {
			t.Errorf("OptionsFromEnv(%v) = %+v, want %+v", tt.env, got, tt.want)
		}
		if diff := cmp.Diff(tt.headers, got.Headers); diff != "" {
			t.Errorf("OptionsFromEnv(%q) headers (-want +got):\n%s", tt.env, diff)
		}
	}
}

func BenchmarkStreamTurn(b *testing.B) {
	text := make([]string, 20)
	for i := range text {
		text[i] = "word "
	}
	srv := llmtest.NewAnthropicServer(b, llmtest.Turn{
		Text:      text,
		ToolCalls: []llmtest.ToolCall{{Name: "Read", Input: `{"file_path":"/some/where/in/the/tree/file.go","offset":10,"limit":200}`}},
	})
	srv.Repeat()
	p := newTestProvider(srv.URL, 0, nil)
	req := basicRequest(llm.UserText("go"))
	events := 0
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Stream(b.Context(), req, func(llm.Event) { events++ }); err != nil {
			b.Fatal(err)
		}
	}
	_ = events
}

// BenchmarkStreamTurnRecorded replays the same turn as BenchmarkStreamTurn
// from a recording, written in one piece, so that the fake server's
// formatting and per-event flushing drop out of the measurement: what is
// left is HTTP and the adapter's decoding.
func BenchmarkStreamTurnRecorded(b *testing.B) {
	text := make([]string, 20)
	for i := range text {
		text[i] = "word "
	}
	fake := llmtest.NewAnthropicServer(b, llmtest.Turn{
		Text:      text,
		ToolCalls: []llmtest.ToolCall{{Name: "Read", Input: `{"file_path":"/some/where/in/the/tree/file.go","offset":10,"limit":200}`}},
	})
	resp, err := http.Post(fake.URL+"/v1/messages", "application/json", strings.NewReader(`{"model":"m","stream":true}`))
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
