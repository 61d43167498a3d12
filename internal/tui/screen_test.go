package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
)

// conversation feeds a short turn through the bus messages: streamed text, a tool call with
// progress, its result.
func conversation(h *harness) {
	h.send(busMsg{agent.Event{Type: agent.EventTextDelta, Index: 0, Text: "Let me **check** the "}},
		busMsg{agent.Event{Type: agent.EventTextDelta, Index: 0, Text: "tests."}})
	resp := &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{
		llm.Text("Let me **check** the tests."),
		llm.ToolUse("t1", "Bash", []byte(`{"command":"go test ./...","description":"Run the tests"}`)),
		llm.ToolUse("t2", "Read", []byte(`{"file_path":"/nonexistent/x.go"}`)),
	}}}
	h.send(busMsg{agent.Event{Type: agent.EventAssistant, Response: resp}})
	h.send(busMsg{agent.Event{Type: agent.EventProgress, ToolUseID: "t1", Progress: tool.Progress{Message: "Running… (3s)", Data: map[string]any{"output": "ok  \tpkg/a\nok  \tpkg/b\n"}}}})
}

func TestScreens(t *testing.T) {
	t.Run("idle", func(t *testing.T) {
		h := newHarness(t, 80, 24)
		h.golden("idle")
	})
	t.Run("streaming", func(t *testing.T) {
		h := newHarness(t, 80, 24)
		h.typeText("run the tests")
		h.m.entries = append(h.m.entries, &entry{kind: entryUser, text: "run the tests"})
		h.m.input.Reset()
		h.m.running = true
		h.send(busMsg{agent.Event{Type: agent.EventTextDelta, Index: 0, Text: "I will run **the tests** and"}})
		h.golden("streaming")
		conversation(h)
		h.now = epoch.Add(3 * time.Second)
		h.golden("tool-progress")
	})
	t.Run("results", func(t *testing.T) {
		h := newHarness(t, 80, 24)
		h.m.entries = append(h.m.entries, &entry{kind: entryUser, text: "run the tests"})
		conversation(h)
		h.now = epoch.Add(1500 * time.Millisecond)
		out := "ok  \tpkg/a\nok  \tpkg/b\nok  \tpkg/c\nFAIL\tpkg/d\nFAIL\n"
		h.send(busMsg{agent.Event{Type: agent.EventToolResults, Message: &llm.Message{Role: llm.RoleUser, Content: []llm.Block{
			llm.ToolResult("t1", []llm.Block{llm.Text(out)}, true),
			llm.ToolResult("t2", []llm.Block{llm.Text("File does not exist.")}, true),
		}}}})
		h.send(turnDoneMsg{err: fmt.Errorf("calling anthropic: overloaded")})
		h.golden("results")
		h.press("ctrl+o")
		h.golden("results-expanded")
	})
	// The assistant's Markdown in the transcript: "●" in the renderer's indent, every element
	// within the window's width, the table cut to fit.
	t.Run("markdown", func(t *testing.T) {
		h := newHarness(t, 60, 34)
		text := "## Result\n\nThe **tests** pass; `go vet` is *clean*.\n\n" +
			"1. first step\n2. second step\n   - [x] nested task\n\n> A quoted note that is long enough to wrap inside the window.\n\n" +
			"```go\nfunc main() {}\n```\n\n| Package | Result | Time |\n|---|:---:|---:|\n| internal/tui/markdown | ok | 0.024s |\n| internal/archtest | ok | 1.776s |\n\n" +
			"See [the docs](https://example.com/docs)."
		resp := &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text(text)}}}
		h.send(busMsg{agent.Event{Type: agent.EventAssistant, Response: resp}})
		h.golden("markdown")
	})
	// Thinking: one collapsed line while it streams and after, its text under ctrl+o, and a
	// redacted block says so without text.
	t.Run("thinking", func(t *testing.T) {
		h := newHarness(t, 80, 20)
		h.m.entries = append(h.m.entries, &entry{kind: entryUser, text: "why does the test fail?"})
		h.m.running = true
		h.send(busMsg{agent.Event{Type: agent.EventThinkingDelta, Index: 0, Text: "The test compares maps; "}})
		h.golden("thinking-streaming")
		thought := "The test compares maps; Go's map order is random, so the golden output changes from run to run. " +
			"Sorting the keys before printing fixes it."
		resp := &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{
			llm.Thinking(thought, "sig"), llm.RedactedThinking("EmwK"), llm.Text("The keys are printed in map order.")}}}
		h.send(busMsg{agent.Event{Type: agent.EventAssistant, Response: resp}})
		h.golden("thinking")
		h.press("ctrl+o")
		h.golden("thinking-expanded")
		// The model's escape sequences never reach the terminal.
		hostile := "title\x1b]0;pwned\a red\x1b[31m C1\x9b end"
		for _, e := range []*entry{
			{kind: entryThinking, text: hostile},
			{kind: entryAssistant, text: hostile, streaming: true},
			{kind: entryAssistant, text: hostile},
		} {
			screen := strings.Join(h.m.r.lines(e), "\n")
			for _, bad := range []string{"\x1b]0;", "\x1b[31m", "\a", "\x9b"} {
				if strings.Contains(screen, bad) {
					t.Errorf("kind %d streaming %v: %q reaches the screen: %q", e.kind, e.streaming, bad, screen)
				}
			}
		}
	})
	t.Run("wide", func(t *testing.T) {
		h := newHarness(t, 140, 20)
		h.m.entries = append(h.m.entries, &entry{kind: entryUser, text: "run the tests"})
		conversation(h)
		h.golden("wide")
	})
	t.Run("bash dialog", func(t *testing.T) {
		h := newHarness(t, 100, 30)
		h.ask("Bash", `{"command":"touch made.txt && curl -s https://example.com","description":"Create a file and fetch"}`)
		h.golden("dialog-bash")
		h.press("?")
		h.golden("dialog-bash-trace")
	})
	t.Run("bash dialog 80x24", func(t *testing.T) {
		h := newHarness(t, 80, 24)
		h.ask("Bash", `{"command":"touch made.txt","description":"Create a file"}`)
		h.golden("dialog-bash-80x24")
		h.press("tab")
		h.golden("dialog-bash-project")
	})
	t.Run("edit dialog", func(t *testing.T) {
		h := newHarness(t, 90, 30)
		file := filepath.Join(h.dir, "greet.go")
		os.WriteFile(file, []byte("package main\n\nfunc greet() string {\n\treturn \"Hello\"\n}\n"), 0o644)
		h.ask("Edit", fmt.Sprintf(`{"file_path":%q,"old_string":"Hello","new_string":"Goodbye"}`, file))
		h.golden("dialog-edit")
	})
	t.Run("write dialog", func(t *testing.T) {
		h := newHarness(t, 90, 24)
		h.ask("Write", fmt.Sprintf(`{"file_path":%q,"content":"line one\nline two\n"}`, filepath.Join(h.dir, "notes.md")))
		h.golden("dialog-write")
	})
	t.Run("protected path dialog", func(t *testing.T) {
		h := newHarness(t, 90, 24)
		h.ask("Write", fmt.Sprintf(`{"file_path":%q,"content":"x"}`, filepath.Join(h.dir, ".git", "config")))
		h.golden("dialog-protected")
	})
	t.Run("webfetch dialog", func(t *testing.T) {
		h := newHarness(t, 90, 24)
		h.ask("WebFetch", `{"url":"https://docs.example.com/guide?x=1","prompt":"Summarise the setup steps"}`)
		h.golden("dialog-webfetch")
	})
	t.Run("mcp dialog", func(t *testing.T) {
		h := newHarness(t, 90, 24)
		h.ask("mcp__github__create_issue", `{"repo":"reinsdev/reins","title":"Crash on start"}`)
		h.golden("dialog-mcp")
	})
	t.Run("feedback", func(t *testing.T) {
		h := newHarness(t, 80, 24)
		h.ask("Bash", `{"command":"touch made.txt"}`)
		h.press("7")
		h.typeText("use a temp dir")
		h.golden("dialog-feedback")
	})
	t.Run("plan approval", func(t *testing.T) {
		h := newHarness(t, 80, 24)
		h.m.setMode(permission.ModePlan)
		h.ask("ExitPlanMode", `{"plan":"# Plan\n\n1. Add the flag\n2. Write the tests"}`)
		h.golden("plan-approval")
	})
	t.Run("ask user question", func(t *testing.T) {
		h := newHarness(t, 80, 24)
		h.ask("AskUserQuestion", `{"questions":[{"question":"Which database should we use?","header":"Database","options":[{"label":"SQLite","description":"A file, no server"},{"label":"Postgres","description":"A server"}]},{"question":"Which features?","header":"Features","multiSelect":true,"options":[{"label":"Auth","description":"Log in"},{"label":"Search","description":"Full text"}]}]}`)
		h.golden("question-single")
		h.press("enter", "space", "down", "space")
		h.golden("question-multi")
	})
	t.Run("permissions", func(t *testing.T) {
		h := newHarness(t, 90, 24, permission.Rule{Value: permission.ParseRule("Bash(git diff:*)"), Behavior: permission.Allow, Source: permission.SourceProject},
			permission.Rule{Value: permission.ParseRule("Read(./.env)"), Behavior: permission.Deny, Source: permission.SourceLocal})
		if err := h.perms.AddScoped(t.Context(), agent.ScopedGrant{Rules: []string{"Bash(npm test)"}, Expires: epoch.Add(30 * time.Minute)}); err != nil {
			t.Fatal(err)
		}
		if err := h.perms.AddScoped(t.Context(), agent.ScopedGrant{Rules: []string{"Bash(make)"}, Calls: 5}); err != nil {
			t.Fatal(err)
		}
		h.now = epoch.Add(10 * time.Minute)
		h.typeText("/permissions")
		h.press("enter")
		h.golden("permissions")
	})
	t.Run("modes", func(t *testing.T) {
		h := newHarness(t, 80, 24)
		h.press("shift+tab")
		h.golden("mode-accept-edits")
		h.press("shift+tab")
		h.golden("mode-plan")
	})
	t.Run("help", func(t *testing.T) {
		h := newHarness(t, 100, 24)
		h.typeText("/help")
		h.press("enter")
		h.golden("help")
	})
	var _ = tea.Quit
}
