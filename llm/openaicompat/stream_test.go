package openaicompat

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/reinsdev/reins/llm"
)

// decode runs the stream decoder over body.
func decode(body string) (*llm.Response, []llm.Event, error) {
	var events []llm.Event
	d := newDecoder("test", func(ev llm.Event) { events = append(events, ev) })
	if err := d.decodeStream(strings.NewReader(body)); err != nil {
		return nil, events, err
	}
	return d.response(), events, nil
}

// data renders chunks as SSE data lines.
func data(chunks ...string) string {
	var b strings.Builder
	for _, c := range chunks {
		b.WriteString("data: " + c + "\n\n")
	}
	return b.String()
}

func TestLenientDecoding(t *testing.T) {
	// ignoreIDs compares tool_use blocks without their (synthetic) ids.
	ignoreIDs := cmpopts.IgnoreFields(llm.Block{}, "ID")
	tests := []struct {
		name      string
		body      string
		want      []llm.Block
		wantStop  llm.StopReason
		wantUsage llm.Usage
		wantErr   string
		anyIDs    bool
	}{
		{
			name: "ollama: whole call in one chunk, finish stop, usage last",
			body: data(
				`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"qwen3","choices":[{"index":0,"delta":{"role":"assistant","content":"","tool_calls":[{"id":"call_x","index":0,"type":"function","function":{"name":"Read","arguments":"{\"file_path\":\"a\"}"}}]},"finish_reason":null}]}`,
				`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"qwen3","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":"stop"}]}`,
				`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"qwen3","choices":[],"usage":{"prompt_tokens":30,"completion_tokens":7,"total_tokens":37}}`,
				`[DONE]`),
			want:      []llm.Block{llm.ToolUse("call_x", "Read", json.RawMessage(`{"file_path":"a"}`))},
			wantStop:  llm.StopToolUse,
			wantUsage: llm.Usage{InputTokens: 30, OutputTokens: 7},
		},
		{
			name: "no index, no ids, two calls",
			body: data(
				`{"choices":[{"delta":{"tool_calls":[{"function":{"name":"A","arguments":"{\"x\""}}]}}]}`,
				`{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":":1}"}}]}}]}`,
				`{"choices":[{"delta":{"tool_calls":[{"function":{"name":"B","arguments":"{}"}}]}}]}`,
				`{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}`),
			want:     []llm.Block{llm.ToolUse("", "A", json.RawMessage(`{"x":1}`)), llm.ToolUse("", "B", json.RawMessage(`{}`))},
			wantStop: llm.StopToolUse,
			anyIDs:   true,
		},
		{
			name: "no index, ids repeated in every delta",
			body: data(
				`{"choices":[{"delta":{"tool_calls":[{"id":"a","function":{"name":"A","arguments":"{\"x\":"}}]}}]}`,
				`{"choices":[{"delta":{"tool_calls":[{"id":"b","function":{"name":"B","arguments":"{}"}}]}}]}`,
				`{"choices":[{"delta":{"tool_calls":[{"id":"a","function":{"arguments":"2}"}}]}}]}`,
				`{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}`, `[DONE]`),
			want:     []llm.Block{llm.ToolUse("a", "A", json.RawMessage(`{"x":2}`)), llm.ToolUse("b", "B", json.RawMessage(`{}`))},
			wantStop: llm.StopToolUse,
		},
		{
			name: "index 0 reused with different ids",
			body: data(
				`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"A","arguments":"{}"}}]}}]}`,
				`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"b","function":{"name":"B","arguments":"{\"k\":"}}]}}]}`,
				`{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"true}"}}]}}]}`,
				`{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}`, `[DONE]`),
			want:     []llm.Block{llm.ToolUse("a", "A", json.RawMessage(`{}`)), llm.ToolUse("b", "B", json.RawMessage(`{"k":true}`))},
			wantStop: llm.StopToolUse,
		},
		{
			name: "parallel calls interleaved by index",
			body: data(
				`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"A","arguments":""}},{"index":1,"id":"b","function":{"name":"B","arguments":""}}]}}]}`,
				`{"choices":[{"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{\"b\":1}"}}]}}]}`,
				`{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\":1}"}}]}}]}`,
				`{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}`, `[DONE]`),
			want:     []llm.Block{llm.ToolUse("a", "A", json.RawMessage(`{"a":1}`)), llm.ToolUse("b", "B", json.RawMessage(`{"b":1}`))},
			wantStop: llm.StopToolUse,
		},
		{
			name:     "arguments as an object",
			body:     data(`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"A","arguments":{"deep":{"x":[1]}}}}]},"finish_reason":"tool_calls"}]}`, `[DONE]`),
			want:     []llm.Block{llm.ToolUse("a", "A", json.RawMessage(`{"deep":{"x":[1]}}`))},
			wantStop: llm.StopToolUse,
		},
		{
			name: "arguments before name",
			body: data(
				`{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"q\":"}}]}}]}`,
				`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"n","function":{"name":"N","arguments":"1}"}}]}}]}`,
				`{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}`),
			want:     []llm.Block{llm.ToolUse("n", "N", json.RawMessage(`{"q":1}`))},
			wantStop: llm.StopToolUse,
		},
		{
			name:     "call that never gets a name is kept",
			body:     data(`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"n","function":{"arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`),
			want:     []llm.Block{llm.ToolUse("n", "", json.RawMessage(`{}`))},
			wantStop: llm.StopToolUse,
		},
		{
			name: "text, tool, text again",
			body: data(
				`{"choices":[{"delta":{"content":"a"}}]}`,
				`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"t","function":{"name":"T","arguments":"{}"}}]}}]}`,
				`{"choices":[{"delta":{"content":"b"}}]}`,
				`{"choices":[{"delta":{"content":null},"finish_reason":"tool_calls"}]}`),
			want:     []llm.Block{llm.Text("a"), llm.ToolUse("t", "T", json.RawMessage(`{}`)), llm.Text("b")},
			wantStop: llm.StopToolUse,
		},
		{
			name:      "no [DONE], usage in finish chunk, cached tokens",
			body:      data(`{"choices":[{"delta":{"content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":50,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":40}}}`),
			want:      []llm.Block{llm.Text("hi")},
			wantStop:  llm.StopEndTurn,
			wantUsage: llm.Usage{InputTokens: 10, OutputTokens: 2, CacheReadInputTokens: 40},
		},
		{
			name:     "[DONE] without finish_reason, no usage",
			body:     data(`{"choices":[{"delta":{"content":"hi"}}]}`, `[DONE]`),
			want:     []llm.Block{llm.Text("hi")},
			wantStop: llm.StopEndTurn,
		},
		{
			name:     "length with tool call stays max_tokens",
			body:     data(`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"t","function":{"name":"T","arguments":"{\"cut"}}]},"finish_reason":"length"}]}`, `[DONE]`),
			want:     []llm.Block{llm.ToolUse("t", "T", json.RawMessage(`{}`))},
			wantStop: llm.StopMaxTokens,
		},
		{
			name:     "eos and content filter spellings",
			body:     data(`{"choices":[{"delta":{"content":"x"},"finish_reason":"eos"}]}`),
			want:     []llm.Block{llm.Text("x")},
			wantStop: llm.StopEndTurn,
		},
		{
			name:     "content_filter",
			body:     data(`{"choices":[{"delta":{},"finish_reason":"content_filter"}]}`),
			wantStop: llm.StopRefusal,
		},
		{
			name:     "unknown finish reason passes through",
			body:     data(`{"choices":[{"delta":{"content":"x"},"finish_reason":"abort"}]}`),
			want:     []llm.Block{llm.Text("x")},
			wantStop: "abort",
		},
		{
			name: "CRLF, comments, no space after colon, event names, reasoning kept as thinking",
			body: ": keep-alive\r\n\r\nevent: chunk\r\ndata:{\"choices\":[{\"delta\":{\"reasoning_content\":\"think\",\"content\":\"x\"}}]}\r\n\r\n" +
				"data: {\"choices\":[{\"delta\":{\"content\":[{\"type\":\"text\",\"text\":\"y\"}]},\"finish_reason\":\"stop\"}]}\r\n\r\ndata: [DONE]\r\n\r\n",
			want:     []llm.Block{llm.Thinking("think", ""), llm.Text("xy")},
			wantStop: llm.StopEndTurn,
		},
		{
			name:     "bare JSON lines and final line without newline",
			body:     `{"choices":[{"delta":{"content":"a"}}]}` + "\n" + `{"choices":[{"delta":{"content":"b"},"finish_reason":"stop"}]}` + "\ndata: [DONE]",
			want:     []llm.Block{llm.Text("ab")},
			wantStop: llm.StopEndTurn,
		},
		{
			name:     "other choices ignored",
			body:     data(`{"choices":[{"index":1,"delta":{"content":"no"}},{"index":0,"delta":{"content":"yes"},"finish_reason":"stop"}]}`),
			want:     []llm.Block{llm.Text("yes")},
			wantStop: llm.StopEndTurn,
		},
		{
			name:    "truncated stream",
			body:    data(`{"choices":[{"delta":{"content":"a"}}]}`),
			wantErr: "stream ended without finish_reason",
		},
		{
			name:    "error object in stream",
			body:    data(`{"choices":[{"delta":{"content":"a"}}]}`, `{"error":{"message":"out of memory","type":"server_error","code":500}}`),
			wantErr: "stream error (server_error): out of memory",
		},
		{
			name:    "error event",
			body:    "event: error\ndata: {\"message\":\"boom\",\"type\":\"overloaded_error\"}\n\n",
			wantErr: "stream error (overloaded_error): boom",
		},
		{
			name:    "error string",
			body:    data(`{"error":"model unloaded"}`),
			wantErr: "stream error: model unloaded",
		},
		{
			name:    "garbage chunk",
			body:    data(`{"choices":[{"delta":{"content":5}}]}`, `not json`),
			wantErr: "decoding chunk",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, events, err := decode(tt.body)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var opts []cmp.Option
			if tt.anyIDs {
				opts = append(opts, ignoreIDs)
			}
			if diff := cmp.Diff(tt.want, resp.Message.Content, append(opts, cmpopts.EquateEmpty())...); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
			if resp.StopReason != tt.wantStop || resp.Usage != tt.wantUsage {
				t.Errorf("stop %q usage %+v, want %q %+v", resp.StopReason, resp.Usage, tt.wantStop, tt.wantUsage)
			}
			ids := map[string]bool{}
			for _, b := range resp.Message.ToolUses() {
				if b.ID == "" || ids[b.ID] {
					t.Errorf("tool_use id %q empty or duplicate", b.ID)
				}
				ids[b.ID] = true
			}
			if last := events[len(events)-1]; last.Type != llm.EventMessageStop {
				t.Errorf("last event %v, want message_stop", last.Type)
			}
		})
	}
}

func TestStreamErrorIsAPIError(t *testing.T) {
	_, _, err := decode(data(`{"error":{"message":"Overloaded","type":"overloaded_error"}}`))
	var apiErr *llm.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 0 || !apiErr.Retryable() {
		t.Fatalf("error = %#v, want retryable in-stream APIError", err)
	}
}

// FuzzDecodeStream feeds arbitrary bodies to the stream decoder: it must not
// panic, and a reply it accepts must serialise, with every tool input a JSON
// object and every tool id unique, and must match its events.
func FuzzDecodeStream(f *testing.F) {
	f.Add([]byte(data(`{"choices":[{"delta":{"content":"hi"},"finish_reason":"stop"}]}`, `[DONE]`)))
	f.Add([]byte(data(`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"A","arguments":"{\"x\":1}"}}]}}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"function":{"name":"B","arguments":{"y":2}}}]}}]}`,
		`{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1}}`, `[DONE]`)))
	f.Add([]byte(data(`{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{"}}]},"finish_reason":"length"}]}`)))
	f.Add([]byte("event: error\ndata: {\"error\":\"x\"}\n\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		resp, events, err := decode(string(body))
		if err != nil {
			return
		}
		if _, err := json.Marshal(resp); err != nil {
			t.Fatalf("response does not serialise: %v", err)
		}
		ids := map[string]bool{}
		for _, b := range resp.Message.ToolUses() {
			var obj map[string]any
			if err := json.Unmarshal(b.Input, &obj); err != nil || obj == nil {
				t.Errorf("tool input %s is not an object", b.Input)
			}
			if b.ID == "" || ids[b.ID] {
				t.Errorf("tool id %q empty or duplicate", b.ID)
			}
			ids[b.ID] = true
		}
		var acc llm.Accumulator
		for _, ev := range events {
			if err := acc.Add(ev); err != nil {
				t.Fatalf("events do not fit together: %v", err)
			}
		}
		if diff := cmp.Diff(acc.Message(), resp.Message); diff != "" {
			t.Errorf("response differs from events:\n%s", diff)
		}
	})
}
