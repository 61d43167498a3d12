package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/tool"
)

// subAssistant is a sub-agent's assistant message calling one tool, as the Agent tool
// republishes it on the parent's bus.
func subAssistant(parent, id, name, input string) busMsg {
	resp := &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.ToolUse(id, name, []byte(input))}}}
	return busMsg{agent.Event{Type: agent.EventAssistant, Response: resp, ParentToolUseID: parent}}
}

func subResult(parent, id, text string, isErr bool) busMsg {
	return busMsg{agent.Event{Type: agent.EventToolResults, ParentToolUseID: parent, Message: &llm.Message{Role: llm.RoleUser,
		Content: []llm.Block{llm.ToolResult(id, []llm.Block{llm.Text(text)}, isErr)}}}}
}

func TestSubAgentScreens(t *testing.T) {
	h := newHarness(t, 80, 24)
	h.m.entries = append(h.m.entries, &entry{kind: entryUser, text: "where are the tests?"})
	h.m.running = true
	resp := &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{
		llm.ToolUse("a1", "Agent", []byte(`{"description":"Find the tests","prompt":"Find where the tests live","subagent_type":"Explore"}`)),
	}}}
	h.send(busMsg{agent.Event{Type: agent.EventAssistant, Response: resp}})
	// The sub-agent's text never reaches the top level: only its calls, under the card.
	h.send(busMsg{agent.Event{Type: agent.EventTextDelta, Index: 0, Text: "I will search.", ParentToolUseID: "a1"}})
	h.send(subAssistant("a1", "s1", "Grep", `{"pattern":"func Test"}`))
	h.send(busMsg{agent.Event{Type: agent.EventProgress, ToolUseID: "a1", Progress: tool.Progress{Message: "Running Grep"}}})
	h.send(subResult("a1", "s1", "12 files", false))
	h.send(subAssistant("a1", "s2", "Read", `{"file_path":"internal/tui/screen_test.go"}`))
	h.send(subResult("a1", "s2", "package tui", false))
	h.send(subAssistant("a1", "s3", "Glob", `{"pattern":"**/*_test.go"}`))
	h.send(subResult("a1", "s3", "no match", true))
	h.send(subAssistant("a1", "s4", "Bash", `{"command":"go test ./internal/tui"}`))
	h.send(busMsg{agent.Event{Type: agent.EventProgress, ToolUseID: "s4", ParentToolUseID: "a1", Progress: tool.Progress{Message: "Running… (2s)"}}})
	h.now = epoch.Add(4 * time.Second)

	for _, e := range h.m.entries {
		if e.kind == entryTool && e.toolName != "Agent" {
			t.Errorf("the sub-agent's %s call is a top-level card", e.toolName)
		}
		if e.kind == entryAssistant {
			t.Errorf("the sub-agent's text %q is a top-level entry", e.text)
		}
	}
	h.golden("subagent-running")
	screen := h.screen()
	if strings.Contains(screen, "Grep(") {
		t.Errorf("the oldest call should be collapsed once there are more than %d:\n%s", subShown, screen)
	}
	h.press("ctrl+o")
	if s := h.screen(); !strings.Contains(s, "Grep(func Test)") {
		t.Errorf("ctrl+o should show every call of the sub-agent:\n%s", s)
	}
	h.press("ctrl+o")

	// A sub-agent's ask marks its nested call while the dialog is open.
	h.ask("Bash", `{"command":"go test ./internal/tui"}`)
	if sc := h.m.subs["s4"]; sc == nil || sc.progress != "waiting for your answer" {
		t.Errorf("the ask did not mark the sub-agent's Bash call: %+v", sc)
	}
	h.press("1")
	if sc := h.m.subs["s4"]; sc == nil || sc.progress != "" {
		t.Errorf("the answer did not clear the mark: %+v", sc)
	}

	h.send(subResult("a1", "s4", "ok", false))
	h.now = epoch.Add(6 * time.Second)
	h.send(busMsg{agent.Event{Type: agent.EventToolResults, Message: &llm.Message{Role: llm.RoleUser, Content: []llm.Block{
		llm.ToolResult("a1", []llm.Block{llm.Text("The tests live beside the code, in *_test.go files.")}, false),
	}}}})
	h.send(turnDoneMsg{})
	h.golden("subagent-done")
	if len(h.m.subs) != 0 || len(h.m.subTop) != 0 {
		t.Errorf("finished calls are still tracked: %v %v", h.m.subs, h.m.subTop)
	}
}

// A sub-agent of a sub-agent nests under the same top-level card; events for a card that
// does not exist are dropped rather than shown at the top level.
func TestNestedSubAgentCalls(t *testing.T) {
	h := newHarness(t, 80, 24)
	resp := &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{
		llm.ToolUse("a1", "Agent", []byte(`{"description":"Plan it","prompt":"p"}`)),
	}}}
	h.send(busMsg{agent.Event{Type: agent.EventAssistant, Response: resp}})
	h.send(subAssistant("a1", "a2", "Agent", `{"description":"Look around","prompt":"p","subagent_type":"Explore"}`))
	h.send(subAssistant("a2", "s1", "Read", `{"file_path":"go.mod"}`))
	h.send(subAssistant("nobody", "x1", "Write", `{"file_path":"x"}`))
	card := h.m.cards["a1"]
	var names []string
	for _, sc := range card.subCalls {
		names = append(names, fmt.Sprintf("%s(%s)", sc.name, sc.keyInput))
	}
	want := "Agent(Explore · Look around) Read(go.mod)"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("nested calls = %q, want %q", got, want)
	}
	if card.keyInput != "general-purpose · Plan it" {
		t.Errorf("card label = %q", card.keyInput)
	}
	for _, e := range h.m.entries {
		if e.kind == entryTool && e != card {
			t.Errorf("%s is a top-level card", e.toolName)
		}
	}
}

// A resumed conversation's Agent cards show the calls their sub-agents made, read from the
// sub-agents' saved conversations.
func TestSubAgentCallsOnResume(t *testing.T) {
	history := []llm.Message{
		llm.UserText("where are the tests?"),
		{Role: llm.RoleAssistant, Content: []llm.Block{llm.ToolUse("a1", "Agent", []byte(`{"description":"Find the tests","prompt":"p","subagent_type":"Explore"}`))}},
		{Role: llm.RoleUser, Content: []llm.Block{llm.ToolResult("a1", []llm.Block{llm.Text("Beside the code.\n\nagentId: a42\n<usage>total_tokens: 10</usage>")}, false)}},
	}
	side := []llm.Message{
		llm.UserText("p"),
		{Role: llm.RoleAssistant, Content: []llm.Block{llm.ToolUse("s1", "Grep", []byte(`{"pattern":"func Test"}`)), llm.ToolUse("s2", "Read", []byte(`{"file_path":"x_test.go"}`))}},
		{Role: llm.RoleUser, Content: []llm.Block{llm.ToolResult("s1", []llm.Block{llm.Text("3 files")}, false), llm.ToolResult("s2", []llm.Block{llm.Text("File does not exist.")}, true)}},
	}
	var asked []string
	entries := entriesFromHistory(history, func(id string) []llm.Message {
		asked = append(asked, id)
		if id == "a42" {
			return side
		}
		return nil
	})
	var card *entry
	for _, e := range entries {
		if e.kind == entryTool {
			card = e
		}
	}
	if card == nil || card.keyInput != "Explore · Find the tests" {
		t.Fatalf("card = %+v", card)
	}
	if fmt.Sprint(asked) != "[a42]" {
		t.Errorf("looked up sub-agents %v, want [a42]", asked)
	}
	var got []string
	for _, sc := range card.subCalls {
		got = append(got, fmt.Sprintf("%s(%s)=%d", sc.name, sc.keyInput, sc.status))
	}
	want := fmt.Sprintf("[Grep(func Test)=%d Read(x_test.go)=%d]", toolDone, toolFailed)
	if fmt.Sprint(got) != want {
		t.Errorf("sub-agent calls = %v, want %s", got, want)
	}
}
