package tui

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/reinsdev/reins/llm"
)

// CustomCommand is a custom slash command (a Markdown file of .claude/commands), as the chat
// lists it.
type CustomCommand struct {
	Name, Description, ArgumentHint string
	// Source is user, project or plugin:<name>.
	Source string
	// Ignored says why the command's allowed-tools do not apply (an untrusted project), if so.
	Ignored string
}

// commandMsg is a custom command expanded and ready to drive the next turn.
type commandMsg struct {
	line, text string
	end        func()
	err        error
}

// customCommand finds a custom command by name.
func (m *Model) customCommand(name string) bool {
	return slices.ContainsFunc(m.cfg.Commands, func(c CustomCommand) bool { return c.Name == name })
}

// runCommand expands /name off the UI's goroutine: its @file and !`cmd` are calls the engine
// decides, and may open the dialog. The expanded prompt becomes the person's next turn.
func (m *Model) runCommand(name, line, args string) tea.Cmd {
	if m.running || m.cfg.RunCommand == nil {
		m.sayErr(fmt.Sprintf("/%s: a turn is running; run the command when it has ended", name))
		return nil
	}
	// No other turn starts while the command is being expanded; Esc and Ctrl+C stop a long
	// !`cmd` line as they stop a turn.
	ctx, cancel := context.WithCancelCause(m.ctx)
	m.running, m.cancel = true, func() { cancel(nil) }
	m.entries = append(m.entries, &entry{kind: entryUser, text: line})
	run := m.cfg.RunCommand
	return func() tea.Msg {
		defer cancel(nil)
		text, end, err := run(ctx, name, args)
		return commandMsg{line: line, text: text, end: end, err: err}
	}
}

// commandReady starts the command's turn; its end (the command's rules dropped) runs when the
// turn is done.
func (m *Model) commandReady(msg commandMsg) tea.Cmd {
	m.running, m.cancel = false, nil
	if msg.err != nil {
		if msg.end != nil {
			msg.end()
		}
		m.sayErr(msg.err.Error())
		return nil
	}
	m.scrollback.follow()
	m.turnEnd = msg.end
	return m.startTurnAs(llm.UserText(msg.text), msg.line)
}

// commandHelp lists the custom commands for /help.
func (m *Model) commandHelp() string {
	if len(m.cfg.Commands) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\nCustom commands (the command's prompt is sent as your turn):")
	for _, c := range m.cfg.Commands {
		usage := "/" + c.Name
		if c.ArgumentHint != "" {
			usage += " " + c.ArgumentHint
		}
		fmt.Fprintf(&b, "\n  %-37s %s (%s)", usage, c.Description, c.Source)
		if c.Ignored != "" {
			fmt.Fprintf(&b, "\n  %-37s %s", "", c.Ignored)
		}
	}
	return b.String()
}

// builtinCommands are the chat's own commands, for completion.
var builtinCommands = []string{"permissions", "mode", "add-dir", "model", "status", "cost", "clear", "compact", "context",
	"taint", "resume", "mcp", "agents", "memory", "init", "exit", "quit", "help"}

// completeSlash completes the /name that is the whole input against the chat's, the custom and
// the MCP prompt commands. It returns the new input and, when several match, the candidates.
func (m *Model) completeSlash(input string) (string, []string, bool) {
	word, ok := strings.CutPrefix(input, "/")
	if !ok || strings.ContainsAny(word, " \t\n") {
		return input, nil, false
	}
	var matches []string
	add := func(name, hint string) {
		if strings.HasPrefix(name, word) {
			matches = append(matches, strings.TrimSpace("/"+name+" "+hint))
		}
	}
	for _, n := range builtinCommands {
		add(n, "")
	}
	for _, c := range m.cfg.Commands {
		add(c.Name, c.ArgumentHint)
	}
	for _, p := range m.cfg.Prompts {
		add(p.Name, "")
	}
	sort.Strings(matches)
	switch len(matches) {
	case 0:
		return input, nil, true
	case 1:
		name, _, _ := strings.Cut(matches[0], " ")
		return name + " ", nil, true
	}
	common := matches[0]
	for _, c := range matches[1:] {
		for !strings.HasPrefix(c, common) {
			common = common[:len(common)-1]
		}
	}
	if name, _, _ := strings.Cut(common, " "); len(name) > len(input) {
		input = name
	}
	if len(matches) > completeShown {
		matches = append(matches[:completeShown:completeShown], "…")
	}
	return input, matches, true
}
