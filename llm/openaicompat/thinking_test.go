package openaicompat

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/llmtest"
)

// TestReasoningIsThinking: reasoning_content (DeepSeek, vLLM) and reasoning (OpenRouter,
// Ollama) deltas become an unsigned thinking block ahead of the text, streamed as thinking
// deltas; reasoning after text opens a block of its own.
func TestReasoningIsThinking(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []llm.Block
	}{
		{"reasoning_content", data(
			`{"choices":[{"delta":{"role":"assistant","content":"","reasoning_content":"Let me "}}]}`,
			`{"choices":[{"delta":{"reasoning_content":"see."}}]}`,
			`{"choices":[{"delta":{"content":"Hi"}}]}`,
			`{"choices":[{"delta":{},"finish_reason":"stop"}]}`, `[DONE]`),
			[]llm.Block{llm.Thinking("Let me see.", ""), llm.Text("Hi")}},
		{"reasoning", data(
			`{"choices":[{"delta":{"reasoning":"hmm","content":null}}]}`,
			`{"choices":[{"delta":{"content":"a"}}]}`,
			`{"choices":[{"delta":{"reasoning":"more"}}]}`,
			`{"choices":[{"delta":{"content":"b"}}]}`,
			`{"choices":[{"delta":{},"finish_reason":"stop"}]}`),
			[]llm.Block{llm.Thinking("hmm", ""), llm.Text("a"), llm.Thinking("more", ""), llm.Text("b")}},
		{"null reasoning", data(
			`{"choices":[{"delta":{"reasoning_content":null,"reasoning":null,"content":"x"}}]}`,
			`{"choices":[{"delta":{},"finish_reason":"stop"}]}`),
			[]llm.Block{llm.Text("x")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, events, err := decode(tt.body)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, resp.Message.Content); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
			if len(tt.want) > 1 && events[0].Type != llm.EventThinkingDelta {
				t.Errorf("first event %v, want a thinking delta", events[0].Type)
			}
		})
	}
}

// TestThinkingNotSentBack: against the fake server, a reply's reasoning arrives as thinking,
// and the next request carries the tool call but no reasoning (DeepSeek refuses
// reasoning_content in messages); an Anthropic thinking block in the history is dropped too.
func TestThinkingNotSentBack(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Thinking: []string{"I should ", "read it."}, ToolCalls: []llmtest.ToolCall{{ID: "call_1", Name: "Read", Input: `{"file_path":"a"}`}}},
		llmtest.Say("done"))
	p := newTestProvider(srv.URL+"/v1", 0, nil)
	first := llm.UserText("read a")
	resp, err := p.Stream(t.Context(), basicRequest(first), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Message.Content[0]; got.Type != llm.BlockThinking || got.Thinking != "I should read it." {
		t.Fatalf("first block %+v, want the reasoning as thinking", got)
	}
	resp.Message.Content = append(resp.Message.Content, llm.Thinking("signed", "sig"), llm.RedactedThinking("opaque"))
	result := llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.ToolResult("call_1", []llm.Block{llm.Text("x")}, false)}}
	if _, err := p.Stream(t.Context(), basicRequest(first, resp.Message, result), nil); err != nil {
		t.Fatal(err)
	}
	body := string(srv.Requests()[1].Body)
	for _, leak := range []string{"I should", "reasoning", "signed", "opaque"} {
		if strings.Contains(body, leak) {
			t.Errorf("request carries %q: %s", leak, body)
		}
	}
	var req struct {
		Messages []struct {
			ToolCalls []json.RawMessage `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(body), &req); err != nil || len(req.Messages) < 3 || len(req.Messages[2].ToolCalls) != 1 {
		t.Errorf("the tool call was not sent back: %s", body)
	}
}
