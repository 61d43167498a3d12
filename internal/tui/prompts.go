package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/reinsdev/reins/llm"
)

// PromptCommand is an MCP server's prompt offered as the slash command /Name.
type PromptCommand struct {
	// Name is mcp__<server>__<prompt>.
	Name        string
	Description string
	// Args name the prompt's arguments in order; optional ones in brackets.
	Args []string
}

// promptMsg is a prompt the server produced, ready to send as the person's turn.
type promptMsg struct {
	line, text string
	err        error
}

// runPrompt asks the server for the prompt of /name off the UI's goroutine; its messages
// become the person's next turn.
func (m *Model) runPrompt(name, line, args string) tea.Cmd {
	var found bool
	for _, p := range m.cfg.Prompts {
		found = found || p.Name == name
	}
	if !found || m.cfg.RunPrompt == nil {
		m.entries = append(m.entries, &entry{kind: entryError, text: fmt.Sprintf("unknown command /%s (try /help)", name)})
		return nil
	}
	m.entries = append(m.entries, &entry{kind: entryInfo, text: "Running the MCP prompt /" + name + "…"})
	ctx, run := m.ctx, m.cfg.RunPrompt
	return func() tea.Msg {
		text, err := run(ctx, name, args)
		return promptMsg{line: line, text: text, err: err}
	}
}

func (m *Model) promptReady(msg promptMsg) tea.Cmd {
	if msg.err != nil {
		m.entries = append(m.entries, &entry{kind: entryError, text: msg.err.Error()})
		return nil
	}
	if strings.TrimSpace(msg.text) == "" {
		m.entries = append(m.entries, &entry{kind: entryError, text: msg.line + ": the prompt is empty"})
		return nil
	}
	if m.running {
		m.queued = append(m.queued, msg.text)
		return nil
	}
	m.scrollback.follow()
	m.entries = append(m.entries, &entry{kind: entryUser, text: msg.text})
	return m.startTurnAs(llm.UserText(msg.text), msg.line)
}

// promptHelp lists the MCP prompts for /help.
func (m *Model) promptHelp() string {
	if len(m.cfg.Prompts) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\nMCP prompts (the server's messages are sent as your turn):")
	for _, p := range m.cfg.Prompts {
		usage := "/" + p.Name
		if len(p.Args) > 0 {
			usage += " " + strings.Join(p.Args, " ")
		}
		fmt.Fprintf(&b, "\n  %-37s %s", usage, p.Description)
	}
	return b.String()
}
