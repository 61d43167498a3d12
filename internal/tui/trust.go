package tui

import (
	"context"
	"errors"
	"fmt"

	tea "charm.land/bubbletea/v2"
)

// TrustItem is one thing a folder's files would enable once trusted, and where it is written
// (file:line:col; empty when the thing is a file itself).
type TrustItem struct {
	What, Where string
}

// TrustOffer is what trusting a project folder would enable, read from its files.
type TrustOffer struct {
	Folder string
	// Rules and Directories are the shared settings' allow rules and additionalDirectories.
	Rules, Directories []TrustItem
	// Mode is the shared settings' defaultMode; nil when they set none.
	Mode *TrustItem
	// Hooks are the project's hooks, with their commands.
	Hooks []TrustItem
	// Servers are the MCP servers of .mcp.json (trust lets the chat ask about each).
	Servers []TrustItem
	// Credentials are the project's apiKeyHelper commands.
	Credentials []TrustItem
	// Env are the variables the project's env blocks set (NAME=value): trusted, they reach the
	// model API's configuration and every Bash command, hook and MCP server.
	Env []TrustItem
	// Memory are the project's memory files, read as information until the folder is trusted.
	Memory []TrustItem
}

// Empty reports whether trusting the folder would enable nothing.
func (o TrustOffer) Empty() bool {
	return len(o.Rules)+len(o.Directories)+len(o.Hooks)+len(o.Servers)+len(o.Credentials)+len(o.Env)+len(o.Memory) == 0 && o.Mode == nil
}

// AskTrust asks, before the chat starts, whether to trust the folder, showing what that would
// enable. Esc, No and Ctrl+C keep it untrusted.
func AskTrust(ctx context.Context, term Terminal, offer TrustOffer) (bool, error) {
	m := newTrustModel(offer)
	p := tea.NewProgram(m, term.options(ctx)...)
	if _, err := p.Run(); err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		return false, fmt.Errorf("asking whether to trust %s: %w", offer.Folder, err)
	}
	return m.yes, ctx.Err()
}

// trustModel is the program of the trust dialog.
type trustModel struct {
	startScreen
	offer TrustOffer
	sel   int
	yes   bool
}

var trustOptions = []string{"Yes, trust this folder", "No, continue without trusting it"}

func newTrustModel(offer TrustOffer) *trustModel {
	return &trustModel{startScreen: newStartScreen(), offer: offer}
}

func (m *trustModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if m.frame(msg) {
		return m, nil
	}
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch msg.String() {
		case "ctrl+c", "esc", "2", "n":
			return m, tea.Quit
		case "up", "k", "down", "j", "tab":
			m.sel = 1 - m.sel
		case "1", "y":
			m.yes = true
			return m, tea.Quit
		case "enter":
			m.yes = m.sel == 0
			return m, tea.Quit
		}
	}
	return m, nil
}

func (m *trustModel) View() tea.View { return view(m.render()) }

// render draws the offer in a box, the lists cut to the screen's height with the number left
// out, and the question always in view.
func (m *trustModel) render() string {
	st := m.r.st
	o := m.offer
	head := []string{st.accent.Render("Do you trust the files in this folder?"), "", st.keyInput.Render(o.Folder), ""}
	var body []string
	section := func(title string, items []TrustItem) {
		if len(items) == 0 {
			return
		}
		body = append(body, title)
		for _, it := range items {
			line := "  " + it.What
			if it.Where != "" {
				line += st.dim.Render("  " + it.Where)
			}
			body = append(body, line)
		}
	}
	section("Allow rules (run without asking):", o.Rules)
	section("Additional directories:", o.Directories)
	if o.Mode != nil {
		section("Permission mode at start (defaultMode):", []TrustItem{*o.Mode})
	}
	section("Hooks (commands run on events):", o.Hooks)
	section("Credential helpers (run to get the API key):", o.Credentials)
	section("Environment (for the model API, Bash, hooks and MCP servers):", o.Env)
	section("MCP servers of .mcp.json (each asked about next):", o.Servers)
	section("Memory files (read as instructions, not only information):", o.Memory)
	r := &renderer{st: st, width: max(m.width-4, 10)}
	tail := append([]string{""}, r.wrap("Trusting this folder lets its files do the above. Trust it only if you trust where it came from.", 0)...)
	tail = append(tail, "", "Trust this folder?")
	for i, opt := range trustOptions {
		if i == m.sel {
			tail = append(tail, st.selected.Render(fmt.Sprintf("❯ %d. %s", i+1, opt)))
		} else {
			tail = append(tail, fmt.Sprintf("  %d. %s", i+1, opt))
		}
	}
	tail = append(tail, st.dim.Render("↑↓ select · enter confirm · esc no (yes is kept, as reins trust)"))
	// Two lines of border; the head and the tail stay whole.
	room := m.height - 2 - len(head) - len(tail)
	if len(body) > room {
		cut := max(room-1, 0)
		body = append(body[:cut:cut], st.dim.Render(fmt.Sprintf("… and %d more lines (reins permissions list shows the rules)", len(body)-cut)))
	}
	return m.box(append(append(head, body...), tail...))
}
