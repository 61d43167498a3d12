package tui

import (
	"context"
	"fmt"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/permission"
)

// history is a session of n messages: user prompts, assistant Markdown with a tool call, and
// tool results, in turn.
func history(n int) []llm.Message {
	msgs := make([]llm.Message, 0, n)
	for i := 0; len(msgs) < n; i++ {
		id := fmt.Sprintf("t%d", i)
		msgs = append(msgs,
			llm.UserText(fmt.Sprintf("Question %d: what does the function `f%d` do?", i, i)),
			llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{
				llm.Text(fmt.Sprintf("Let me look at **f%d**.\n\n- it reads a file\n- it returns the count", i)),
				llm.ToolUse(id, "Read", []byte(`{"file_path":"/src/f.go"}`))}},
			llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.ToolResult(id, []llm.Block{llm.Text("package f\n\nfunc f() int { return 1 }\n")}, false)}})
	}
	return msgs[:n]
}

func benchConfig(b *testing.B, n int) *Config {
	pc, err := permission.New(permission.Config{Cwd: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	return &Config{Agent: &agent.Agent{Permissions: agent.NewPermissions(pc, nil)}, History: history(n), NoColor: true, SessionID: "bench"}
}

// BenchmarkFirstFrame is start to first frame of a resumed session: building the model from
// the session's messages and rendering the screen.
func BenchmarkFirstFrame(b *testing.B) {
	for _, n := range []int{100, 2000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			cfg := benchConfig(b, n)
			b.ReportAllocs()
			for b.Loop() {
				m := newModel(context.Background(), cfg)
				m.Update(tea.WindowSizeMsg{Width: 100, Height: 40})
				_ = m.render()
			}
		})
	}
}

// BenchmarkKeystroke is a key typed (or deleted) into the input and the repaint that follows, in a long
// session whose visible entries are already rendered.
func BenchmarkKeystroke(b *testing.B) {
	for _, n := range []int{100, 2000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			m := newModel(context.Background(), benchConfig(b, n))
			m.Update(tea.WindowSizeMsg{Width: 100, Height: 40})
			_ = m.render()
			// Typing and deleting alternate, so the input stays one line long.
			keys := []tea.KeyPressMsg{{Code: 'a', Text: "a"}, {Code: tea.KeyBackspace}}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				m.Update(keys[i%2])
				_ = m.render()
				i++
			}
		})
	}
}
