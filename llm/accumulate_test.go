package llm

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAccumulator(t *testing.T) {
	var a Accumulator
	events := []Event{
		{Type: EventTextDelta, Index: 0, Text: "Hel"},
		{Type: EventTextDelta, Index: 0, Text: "lo"},
		{Type: EventToolUseStart, Index: 1, ToolUseID: "t1", ToolName: "Read"},
		{Type: EventToolInputDelta, Index: 1, PartialJSON: `{"pa`},
		{Type: EventToolInputDelta, Index: 1, PartialJSON: `th":"x"}`},
		{Type: EventToolUseStart, Index: 2, ToolUseID: "t2", ToolName: "Cut"},
		{Type: EventToolInputDelta, Index: 2, PartialJSON: `{"trunc`},
		{Type: EventToolUseStart, Index: 3, ToolUseID: "t3", ToolName: "Empty"},
		{Type: EventTextDelta, Index: 4, Text: "after"},
		{Type: EventToolUseStart, Index: 5, ToolUseID: "t4", ToolName: "Array"},
		{Type: EventToolInputDelta, Index: 5, PartialJSON: `[1, 2]`},
		{Type: EventMessageStop, StopReason: StopMaxTokens, Usage: Usage{InputTokens: 3, OutputTokens: 4}},
	}
	for i, ev := range events {
		if err := a.Add(ev); err != nil {
			t.Fatalf("Add(event %d %v): %v", i, ev.Type, err)
		}
	}
	if !a.Stopped() {
		t.Error("Stopped() = false after message_stop")
	}
	want := &Response{
		Message: Message{Role: RoleAssistant, Content: []Block{
			Text("Hello"),
			ToolUse("t1", "Read", json.RawMessage(`{"path":"x"}`)),
			ToolUse("t2", "Cut", json.RawMessage(`{}`)), // truncated input falls back to {}
			ToolUse("t3", "Empty", json.RawMessage(`{}`)),
			Text("after"),
			ToolUse("t4", "Array", json.RawMessage(`{}`)), // not an object
		}},
		StopReason: StopMaxTokens,
		Usage:      Usage{InputTokens: 3, OutputTokens: 4},
	}
	if diff := cmp.Diff(want, a.Response()); diff != "" {
		t.Errorf("Response mismatch (-want +got):\n%s", diff)
	}
	if _, err := json.Marshal(a.Response()); err != nil {
		t.Errorf("assembled response does not serialise: %v", err)
	}
}

func TestAccumulatorRejects(t *testing.T) {
	tests := []struct {
		name    string
		events  []Event
		wantErr string
	}{
		{"text gap", []Event{{Type: EventTextDelta, Index: 1, Text: "x"}}, "0 blocks are open"},
		{"tool gap", []Event{{Type: EventToolUseStart, Index: 2}}, "want 0"},
		{"input to text", []Event{{Type: EventTextDelta, Text: "x"}, {Type: EventToolInputDelta, PartialJSON: "{"}}, "of type text"},
		{"text to tool", []Event{{Type: EventToolUseStart}, {Type: EventTextDelta, Text: "x"}}, "of type tool_use"},
		{"after stop", []Event{{Type: EventMessageStop}, {Type: EventTextDelta}}, "after message_stop"},
		{"unknown", []Event{{Type: 99}}, "unknown event type"},
		{"signature to text", []Event{{Type: EventTextDelta, Text: "x"}, {Type: EventSignatureDelta, Signature: "s"}}, "of type text"},
		{"signature to nothing", []Event{{Type: EventSignatureDelta, Signature: "s"}}, "0 blocks are open"},
		{"thinking to text", []Event{{Type: EventTextDelta, Text: "x"}, {Type: EventThinkingDelta, Text: "t"}}, "of type text"},
		{"redacted gap", []Event{{Type: EventRedactedThinking, Index: 1, Data: "d"}}, "want 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a Accumulator
			var err error
			for _, ev := range tt.events {
				if err = a.Add(ev); err != nil {
					break
				}
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

// TestAccumulatorThinking: thinking deltas and signatures build one signed block each, an
// empty thinking block with only a signature is kept (the API needs it back), and redacted
// blocks keep their data.
func TestAccumulatorThinking(t *testing.T) {
	var a Accumulator
	for i, ev := range []Event{
		{Type: EventThinkingDelta, Index: 0, Text: "Let me "},
		{Type: EventThinkingDelta, Index: 0, Text: "think."},
		{Type: EventSignatureDelta, Index: 0, Signature: "EqQB"},
		{Type: EventSignatureDelta, Index: 0, Signature: "Ck8="},
		{Type: EventRedactedThinking, Index: 1, Data: "opaque=="},
		{Type: EventThinkingDelta, Index: 2},
		{Type: EventSignatureDelta, Index: 2, Signature: "only"},
		{Type: EventTextDelta, Index: 3, Text: "done"},
		{Type: EventMessageStop, StopReason: StopEndTurn},
	} {
		if err := a.Add(ev); err != nil {
			t.Fatalf("Add(event %d %v): %v", i, ev.Type, err)
		}
	}
	want := Message{Role: RoleAssistant, Content: []Block{
		Thinking("Let me think.", "EqQBCk8="), RedactedThinking("opaque=="), Thinking("", "only"), Text("done"),
	}}
	if diff := cmp.Diff(want, a.Message()); diff != "" {
		t.Errorf("message (-want +got):\n%s", diff)
	}
	if got := a.Message().Text(); got != "done" {
		t.Errorf("Text() = %q, want the text blocks only", got)
	}
}

// TestCheckThinking: the combinations the API refuses are named before a request is sent.
func TestCheckThinking(t *testing.T) {
	one, half := 1.0, 0.5
	tests := []struct {
		name    string
		req     Request
		wantErr string
	}{
		{"off", Request{MaxTokens: 10, Temperature: &half}, ""},
		{"fine", Request{MaxTokens: 4096, ThinkingBudget: 1024}, ""},
		{"temperature one", Request{MaxTokens: 4096, ThinkingBudget: 2048, Temperature: &one}, ""},
		{"too small", Request{MaxTokens: 4096, ThinkingBudget: 1023}, "below the minimum of 1024"},
		{"negative", Request{MaxTokens: 4096, ThinkingBudget: -5}, "below the minimum"},
		{"equal to max tokens", Request{MaxTokens: 4096, ThinkingBudget: 4096}, "less than max tokens 4096"},
		{"temperature", Request{MaxTokens: 4096, ThinkingBudget: 2048, Temperature: &half}, "temperature 0.5 cannot be set"},
		{"10^12 with the reply at the model's bound", Request{Model: "claude-sonnet-4-5", MaxTokens: 64_000, ThinkingBudget: 1_000_000_000_000}, "thinking budget 1000000000000 is more than claude-sonnet-4-5 takes: a reply of at most 64000 output tokens, thinking included, so the budget must be below 64000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.req.CheckThinking()
			if (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("CheckThinking() = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

// TestCheckThinkingLimit: a configured budget is also held to the model's output limit, which
// a single request is not.
func TestCheckThinkingLimit(t *testing.T) {
	tests := []struct {
		name    string
		req     Request
		wantErr string
	}{
		{"over the model's output", Request{Model: "claude-opus-4-1", MaxTokens: 40_000, ThinkingBudget: 32_000}, "over the 32000 output tokens of claude-opus-4-1: the budget must be below 32000"},
		{"within the model's output", Request{Model: "claude-sonnet-4-5-20250929", MaxTokens: 64_000, ThinkingBudget: 60_000}, ""},
		{"10^12", Request{Model: "claude-sonnet-4-5", MaxTokens: 1_000_000_008_192, ThinkingBudget: 1_000_000_000_000}, "thinking budget 1000000000000 needs max tokens of 1000000008192, over the 64000 output tokens"},
		{"10^12 for a model it does not know", Request{Model: "local-model", MaxTokens: 1_000_000_008_192, ThinkingBudget: 1_000_000_000_000}, "over the 128000 output tokens of local-model"},
		{"below the minimum still", Request{Model: "claude-sonnet-4-5", MaxTokens: 4096, ThinkingBudget: 10}, "below the minimum"},
		{"off", Request{Model: "claude-sonnet-4-5", MaxTokens: 1 << 40}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.req.CheckThinkingLimit()
			if (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("CheckThinkingLimit() = %v, want %q", err, tt.wantErr)
			}
			if tt.name == "over the model's output" && tt.req.CheckThinking() != nil {
				t.Error("a single request is refused for the table's limit")
			}
		})
	}
}
