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
