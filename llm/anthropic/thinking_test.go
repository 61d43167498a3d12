package anthropic

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/llmtest"
)

// TestThinkingToolLoop: against the fake API, a turn that thinks before a tool call comes back
// with its signed thinking and redacted blocks, streamed as events; the next request of the
// loop sends them back unchanged and is served; a request that dropped or changed them is
// refused with the API's 400, and so is a thinking turn asked without a budget.
func TestThinkingToolLoop(t *testing.T) {
	think := func() llmtest.Turn {
		return llmtest.Turn{
			Thinking: []string{"The user wants ", "the file."}, Signature: "EqQBCkgIARAB==", RedactedThinking: "EmwKAhgBEgy3va3p",
			ToolCalls: []llmtest.ToolCall{{ID: "toolu_A", Name: "Read", Input: `{"file_path":"a"}`}},
		}
	}
	withThinking := func(msgs ...llm.Message) *llm.Request {
		req := basicRequest(msgs...)
		req.MaxTokens, req.ThinkingBudget = 4096, 2048
		return req
	}
	first := llm.UserText("read a")
	result := llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.ToolResult("toolu_A", []llm.Block{llm.Text("x")}, false)}}

	srv := llmtest.NewAnthropicServer(t, think(), llmtest.Say("done"))
	p := newTestProvider(srv.URL, 0, nil)
	var events []llm.Event
	resp, err := p.Stream(t.Context(), withThinking(first), func(ev llm.Event) { events = append(events, ev) })
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.Block{
		llm.Thinking("The user wants the file.", "EqQBCkgIARAB=="),
		llm.RedactedThinking("EmwKAhgBEgy3va3p"),
		llm.ToolUse("toolu_A", "Read", []byte(`{"file_path":"a"}`)),
	}
	if diff := cmp.Diff(want, resp.Message.Content); diff != "" {
		t.Fatalf("content (-want +got):\n%s", diff)
	}
	var thinking strings.Builder
	for _, ev := range events {
		if ev.Type == llm.EventThinkingDelta {
			thinking.WriteString(ev.Text)
		}
	}
	if thinking.String() != "The user wants the file." {
		t.Errorf("thinking deltas = %q", thinking.String())
	}
	if !strings.Contains(string(srv.Requests()[0].Body), `"thinking":{"budget_tokens":2048,"type":"enabled"}`) {
		t.Errorf("request does not enable thinking: %s", srv.Requests()[0].Body)
	}
	if _, err := p.Stream(t.Context(), withThinking(first, resp.Message, result), nil); err != nil {
		t.Fatalf("the loop's next request, thinking sent back: %v", err)
	}

	broken := map[string]llm.Message{
		"thinking dropped": {Role: llm.RoleAssistant, Content: resp.Message.Content[2:]},
		"signature changed": {Role: llm.RoleAssistant, Content: []llm.Block{
			llm.Thinking("The user wants the file.", "forged"), want[1], want[2]}},
		"text changed": {Role: llm.RoleAssistant, Content: []llm.Block{
			llm.Thinking("The user wants something else.", "EqQBCkgIARAB=="), want[1], want[2]}},
		"redacted dropped": {Role: llm.RoleAssistant, Content: []llm.Block{want[0], want[2]}},
	}
	for name, assistant := range broken {
		t.Run(name, func(t *testing.T) {
			srv := llmtest.NewAnthropicServer(t, think(), llmtest.Say("done"))
			p := newTestProvider(srv.URL, 0, nil)
			if _, err := p.Stream(t.Context(), withThinking(first), nil); err != nil {
				t.Fatal(err)
			}
			_, err := p.Stream(t.Context(), withThinking(first, assistant, result), nil)
			if apiErr, ok := errors.AsType[*llm.APIError](err); !ok || apiErr.StatusCode != 400 || !strings.Contains(apiErr.Message, "thinking") {
				t.Fatalf("error = %v, want the API's 400 about thinking", err)
			}
		})
	}

	t.Run("no budget", func(t *testing.T) {
		srv := llmtest.NewAnthropicServer(t, think())
		_, err := newTestProvider(srv.URL, 0, nil).Stream(t.Context(), basicRequest(first), nil)
		if apiErr, ok := errors.AsType[*llm.APIError](err); !ok || apiErr.StatusCode != 400 {
			t.Fatalf("error = %v, want 400", err)
		}
	})
}
