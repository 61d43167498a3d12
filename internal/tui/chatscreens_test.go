package tui

import (
	"strings"
	"testing"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/permission"
)

func assistantMsg(blocks ...llm.Block) busMsg {
	return busMsg{ev: agent.Event{Type: agent.EventAssistant, Response: &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: blocks}}}}
}

func resultsMsg(blocks ...llm.Block) busMsg {
	return busMsg{ev: agent.Event{Type: agent.EventToolResults, Message: &llm.Message{Role: llm.RoleUser, Content: blocks}}}
}

func TestChatScreens(t *testing.T) {
	t.Run("start banner", func(t *testing.T) {
		for _, trusted := range []bool{false, true} {
			h := newHarness(t, 90, 12)
			h.m.cfg.Trusted = trusted
			h.m.entries = append([]*entry{h.m.banner()}, h.m.entries...)
			s := h.screen()
			for _, want := range []string{"model   claude-test", "folder  $ROOT/project", "mode    default"} {
				if !strings.Contains(s, want) {
					t.Errorf("the banner does not show %q:\n%s", want, s)
				}
			}
			if got := strings.Contains(s, "not trusted"); got == trusted {
				t.Errorf("trusted=%v, the banner says:\n%s", trusted, s)
			}
			if !trusted {
				h.golden("banner-untrusted")
			}
		}
	})
	t.Run("a card waits for the dialog", func(t *testing.T) {
		h := newHarness(t, 90, 40)
		h.send(assistantMsg(llm.ToolUse("t1", "Bash", []byte(`{"command":"touch made.txt"}`))))
		h.ask("Bash", `{"command":"touch made.txt"}`)
		h.now = h.now.Add(3e9)
		s := h.screen()
		if !strings.Contains(s, "Bash(touch made.txt) waiting for your answer") || strings.Contains(s, "running") {
			t.Errorf("the card does not say it waits for the answer:\n%s", s)
		}
		h.golden("card-waiting")
	})
	t.Run("the dialog opens before its card is drawn", func(t *testing.T) {
		// The ask comes from the agent's goroutine, the card through the bus: either may be
		// first.
		h := newHarness(t, 90, 40)
		reply := make(chan answer, 1)
		h.send(askMsg{id: 1, useID: "t2", req: permission.AskRequest{Tool: "Bash", Decision: permission.Decision{Behavior: permission.Ask}}, raw: []byte(`{"command":"touch b"}`), reply: reply})
		h.send(assistantMsg(llm.ToolUse("t1", "Bash", []byte(`{"command":"touch a"}`)), llm.ToolUse("t2", "Bash", []byte(`{"command":"touch b"}`))))
		s := h.screen()
		if !strings.Contains(s, "Bash(touch b) waiting for your answer") || strings.Contains(s, "Bash(touch a) waiting") {
			t.Errorf("the card of the asked call does not wait:\n%s", s)
		}
		h.press("1")
		if received(t, reply).kind != ansYes || strings.Contains(h.screen(), "Bash(touch b) waiting") {
			t.Errorf("the card still waits after the answer:\n%s", h.screen())
		}
	})
	t.Run("cards show no ids or tags", func(t *testing.T) {
		h := newHarness(t, 90, 16)
		h.send(assistantMsg(
			llm.ToolUse("a1", "Agent", []byte(`{"description":"Find the tests","prompt":"p","subagent_type":"Explore"}`)),
			llm.ToolUse("b1", "Bash", []byte(`{"command":"sleep 100"}`)),
			llm.ToolUse("r1", "Read", []byte(`{"file_path":"x"}`))))
		h.send(resultsMsg(
			llm.ToolResult("a1", []llm.Block{llm.Text("Beside the code.\n\nagentId: a42\n<usage>total_tokens: 10\ntool_uses: 2\nduration_ms: 5</usage>")}, false),
			llm.ToolResult("b1", []llm.Block{llm.Text("<error>Command was aborted before completion</error>")}, true),
			llm.ToolResult("r1", []llm.Block{llm.Text("<tool_use_error>InputValidationError: file_path must be absolute</tool_use_error>")}, true)))
		s := h.screen()
		for _, bad := range []string{"agentId", "<usage>", "<error>", "</error>", "tool_use_error>"} {
			if strings.Contains(s, bad) {
				t.Errorf("a card shows %q:\n%s", bad, s)
			}
		}
		h.golden("cards-clean")
	})
}
