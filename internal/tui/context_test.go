package tui

import (
	"context"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/llmtest"
)

// /compact [instructions] runs a manual compaction: the conversation becomes the summary, the
// transcript says so, and the instructions reach the summary request.
func TestCompactCommand(t *testing.T) {
	h := newHarness(t, 100, 30)
	p := llmtest.NewScript(func(context.Context, *llm.Request) (*llm.Response, error) {
		return llmtest.Response(llm.StopEndTurn, llm.Text("<summary>we fixed the parser</summary>")), nil
	})
	h.m.cfg.Agent.Provider = p
	h.m.msgs = []llm.Message{llm.UserText("fix the parser"), {Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("fixed")}}}
	var mu sync.Mutex
	var evs []agent.Event
	unsub := h.m.cfg.Agent.Bus.Subscribe(func(ev agent.Event) { mu.Lock(); evs = append(evs, ev); mu.Unlock() })
	h.typeText("/compact keep the function names")
	_, cmd := h.m.Update(keyMsg("enter"))
	if cmd == nil || !h.m.running {
		t.Fatal("/compact started nothing")
	}
	done := cmd().(tea.BatchMsg)[0]().(turnDoneMsg)
	unsub()
	for _, ev := range evs {
		h.send(busMsg{ev})
	}
	h.send(done)
	if done.err != nil || len(h.m.msgs) != 1 || !strings.Contains(h.m.msgs[0].Text(), "we fixed the parser") {
		t.Fatalf("after /compact: err %v, %d messages", done.err, len(h.m.msgs))
	}
	req := p.Requests()[0]
	if !strings.Contains(req.Messages[len(req.Messages)-1].Text(), "keep the function names") {
		t.Error("the instructions did not reach the summary request")
	}
	if s := h.screen(); !strings.Contains(s, "Conversation compacted:") {
		t.Errorf("the transcript does not tell of the compaction:\n%s", s)
	}
}

func TestCompactRefusedWhileRunningOrEmpty(t *testing.T) {
	h := newHarness(t, 100, 30)
	h.typeText("/compact")
	h.press("enter")
	if !strings.Contains(h.screen(), "nothing to compact") {
		t.Errorf("an empty conversation:\n%s", h.screen())
	}
	h.m.msgs = []llm.Message{llm.UserText("x")}
	h.m.running = true
	h.typeText("/compact")
	h.press("enter")
	if !strings.Contains(h.screen(), "before /compact") {
		t.Errorf("during a turn:\n%s", h.screen())
	}
}

func TestContextCommandAndStatusLine(t *testing.T) {
	h := newHarness(t, 120, 30)
	h.m.msgs = []llm.Message{llm.UserText(strings.Repeat("word ", 2000))}
	h.typeText("/context")
	h.press("enter")
	s := h.screen()
	for _, want := range []string{"Context:", "of 200.0k tokens", "System prompt", "Memory files", "System tools", "Messages", "Autocompact buffer", "Free space", "Automatic compaction at 178.8k tokens"} {
		if !strings.Contains(s, want) {
			t.Errorf("/context lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "until auto-compact") {
		t.Errorf("the status line shows the context while it is far from full:\n%s", s)
	}
	// A reply that says the prompt filled most of the window brings the figure up, in a
	// chat that never asked for /context too.
	h = newHarness(t, 120, 30)
	h.send(busMsg{agent.Event{Type: agent.EventAssistant, Response: &llm.Response{Message: llm.Message{Role: llm.RoleAssistant}, Usage: llm.Usage{InputTokens: 150_000}}}})
	if s := h.screen(); !strings.Contains(s, "16% context left until auto-compact") {
		t.Errorf("status line near the threshold:\n%s", s)
	}
}

func TestFailedAutoCompactionIsTold(t *testing.T) {
	h := newHarness(t, 120, 30)
	h.send(busMsg{agent.Event{Type: agent.EventNotice, Text: "Automatic compaction failed; the conversation goes on uncompacted: boom"}})
	h.send(busMsg{agent.Event{Type: agent.EventNotice, ToolUseID: "t1", Text: "a call's note for the log"}})
	s := h.screen()
	if !strings.Contains(s, "Automatic compaction failed") || strings.Contains(s, "a call's note") {
		t.Errorf("screen:\n%s", s)
	}
}
