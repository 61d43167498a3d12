package sdkproto

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/llmtest"
)

// lineTypes renders each collected line as its JSON, for matching.
func lineJSON(t *testing.T, c *Collector) []string {
	t.Helper()
	var out []string
	for _, l := range c.Lines {
		b, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	return out
}

func TestEmitterSubAgentEvents(t *testing.T) {
	c := &Collector{}
	e := &Emitter{W: c, SessionID: "s", Partial: true}
	main := llmtest.Response(llm.StopEndTurn, llm.Text("main answer"))
	sub := &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("sub")}}, StopReason: llm.StopMaxTokens, Model: "claude-haiku-4-5"}
	e.Handle(agent.Event{Type: agent.EventTextDelta, Text: "sub", ParentToolUseID: "toolu_agent"})
	e.Handle(agent.Event{Type: agent.EventAssistant, Response: sub, ParentToolUseID: "toolu_agent"})
	e.Handle(agent.Event{Type: agent.EventTextDelta, Text: "main answer"})
	e.Handle(agent.Event{Type: agent.EventAssistant, Response: main})
	e.Result(&agent.Result{Subtype: agent.SubtypeSuccess, Text: "main answer", CostKnown: true})
	lines := lineJSON(t, c)

	var sawSub bool
	for _, l := range lines {
		if strings.Contains(l, `"type":"assistant"`) && strings.Contains(l, `"text":"sub"`) {
			sawSub = true
			if !strings.Contains(l, `"parent_tool_use_id":"toolu_agent"`) {
				t.Errorf("sub-agent message without its parent: %s", l)
			}
		}
		if strings.Contains(l, `"type":"stream_event"`) && strings.Contains(l, `"sub"`) {
			t.Errorf("a sub-agent's text streamed as a partial message: %s", l)
		}
	}
	if !sawSub {
		t.Errorf("no sub-agent message in %v", lines)
	}
	res := lines[len(lines)-1]
	if !strings.Contains(res, `"stop_reason":"end_turn"`) || !strings.Contains(res, `"claude-haiku-4-5"`) {
		t.Errorf("result %s: want the main thread's stop_reason and the sub-agent's model usage", res)
	}
}

func TestEmitterPartialStreamIsWellFormed(t *testing.T) {
	c := &Collector{}
	e := &Emitter{W: c, SessionID: "s", Partial: true}
	r := &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{
		llm.Text("Let me look."), llm.ToolUse("tu1", "Read", json.RawMessage(`{"file_path":"/a"}`))}},
		StopReason: llm.StopToolUse, Model: "claude-sonnet-4-5"}
	e.Handle(agent.Event{Type: agent.EventTextDelta, Index: 0, Text: "Let me "})
	e.Handle(agent.Event{Type: agent.EventTextDelta, Index: 0, Text: "look."})
	e.Handle(agent.Event{Type: agent.EventAssistant, Response: r})
	var events []string
	for _, l := range c.Lines {
		if se, ok := l.(streamEventLine); ok {
			b, _ := json.Marshal(se.Event)
			var ev struct {
				Type  string `json:"type"`
				Index int    `json:"index"`
			}
			json.Unmarshal(b, &ev)
			events = append(events, ev.Type)
		}
	}
	want := "message_start content_block_start content_block_delta content_block_delta content_block_stop " +
		"content_block_start content_block_delta content_block_stop message_delta message_stop"
	if got := strings.Join(events, " "); got != want {
		t.Errorf("events\n got %s\nwant %s", got, want)
	}
}

// TestEmitterClassifierUsage: auto mode's classifier requests count in modelUsage under their
// model, and write no line of their own.
func TestEmitterClassifierUsage(t *testing.T) {
	c := &Collector{}
	e := &Emitter{W: c, SessionID: "s"}
	e.Handle(agent.Event{Type: agent.EventAssistant, Response: llmtest.Response(llm.StopEndTurn, llm.Text("hi"))})
	e.Handle(agent.Event{Type: agent.EventUsage, Response: &llm.Response{Model: "claude-haiku-4-5", Usage: llm.Usage{InputTokens: 700, OutputTokens: 30}}})
	e.Handle(agent.Event{Type: agent.EventUsage, Response: &llm.Response{Model: "claude-haiku-4-5", Usage: llm.Usage{InputTokens: 300, OutputTokens: 20}}})
	e.Result(&agent.Result{Subtype: agent.SubtypeSuccess, CostKnown: true})
	if len(c.Lines) != 2 {
		t.Fatalf("lines %v, want the assistant and the result", lineJSON(t, c))
	}
	res := c.Lines[1].(ResultLine)
	mu, ok := res.ModelUsage["claude-haiku-4-5"]
	if !ok || mu.InputTokens != 1000 || mu.OutputTokens != 50 || mu.CostUSD == 0 {
		t.Fatalf("modelUsage %+v", res.ModelUsage)
	}
}

// TestEmitterThinking: an assistant message's thinking blocks are written as the API sent
// them (thinking with its signature, redacted_thinking with its data), in the assistant line
// and, with partial messages, as whole blocks of the stream (thinking_delta, signature_delta).
func TestEmitterThinking(t *testing.T) {
	c := &Collector{}
	e := &Emitter{W: c, SessionID: "s", Partial: true}
	r := &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{
		llm.Thinking("Let me think.", "EqQB=="), llm.RedactedThinking("EmwK"), llm.Thinking("", ""), llm.Text("Done.")}},
		StopReason: llm.StopEndTurn, Model: "claude-sonnet-4-5"}
	e.Handle(agent.Event{Type: agent.EventTextDelta, Index: 3, Text: "Done."})
	e.Handle(agent.Event{Type: agent.EventAssistant, Response: r})
	lines := lineJSON(t, c)
	var assistant string
	var stream []string
	for _, l := range lines {
		if strings.Contains(l, `"type":"assistant"`) {
			assistant = l
		}
		if strings.Contains(l, `"type":"stream_event"`) {
			stream = append(stream, l)
		}
	}
	for _, want := range []string{
		`{"type":"thinking","thinking":"Let me think.","signature":"EqQB=="}`,
		`{"type":"redacted_thinking","data":"EmwK"}`,
		`{"type":"thinking","thinking":"","signature":""}`,
		`{"type":"text","text":"Done."}`,
	} {
		if !strings.Contains(assistant, want) {
			t.Errorf("assistant line %s\nlacks %s", assistant, want)
		}
	}
	all := strings.Join(stream, "\n")
	for _, want := range []string{
		`"content_block":{"type":"thinking","thinking":"","signature":""}`,
		`"delta":{"type":"thinking_delta","thinking":"Let me think."}`,
		`"delta":{"type":"signature_delta","signature":"EqQB=="}`,
		`"content_block":{"type":"redacted_thinking","data":"EmwK"}`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("stream events lack %s:\n%s", want, all)
		}
	}
}
