package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"

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
	// Runs are what the files would run, or change where requests and credentials go
	// (helpers, env, hooks, MCP servers, plugins, granted tools, agents' modes): shown first
	// and in full, a group per kind.
	Runs []TrustGroup
	// Mode is the shared settings' defaultMode; nil when they set none.
	Mode *TrustItem
	// Rules and Directories are the shared settings' allow rules and additionalDirectories.
	Rules, Directories []TrustItem
	// Memory are the project's memory files, read as information until the folder is trusted.
	Memory []TrustItem
}

// TrustGroup is one kind of thing a folder's files would run, under its title.
type TrustGroup struct {
	Title string
	Items []TrustItem
}

// Empty reports whether trusting the folder would enable nothing.
func (o TrustOffer) Empty() bool {
	n := len(o.Rules) + len(o.Directories) + len(o.Memory)
	for _, g := range o.Runs {
		n += len(g.Items)
	}
	return n == 0 && o.Mode == nil
}

// AskTrust asks, before the chat starts, whether to trust the folder, showing what that would
// enable. It starts on No: Enter alone, Esc, No and Ctrl+C keep the folder untrusted.
func AskTrust(ctx context.Context, term Terminal, offer TrustOffer) (bool, error) {
	m := newTrustModel(offer)
	p := tea.NewProgram(m, term.options(ctx)...)
	if _, err := p.Run(); err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		return false, fmt.Errorf("asking whether to trust %s: %w", offer.Folder, err)
	}
	return m.yes, ctx.Err()
}

// trustModel is the program of the trust dialog. The list of what the files enable scrolls
// (top is its first line in view); the question and the choices stay in view.
type trustModel struct {
	startScreen
	offer TrustOffer
	sel   int
	top   int
	yes   bool
}

var trustOptions = []string{"Yes, trust this folder", "No, continue without trusting it"}

// trustNo is the option the dialog starts on: the safe one, as in Claude Code.
const trustNo = 1

func newTrustModel(offer TrustOffer) *trustModel {
	return &trustModel{startScreen: newStartScreen(), offer: offer, sel: trustNo}
}

func (m *trustModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if m.frame(msg) {
		m.scroll(0)
		return m, nil
	}
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch msg.String() {
		case "ctrl+c", "esc", "2", "n":
			return m, tea.Quit
		case "left", "right", "h", "l", "tab", "shift+tab":
			m.sel = 1 - m.sel
		case "up", "k":
			m.scroll(-1)
		case "down", "j":
			m.scroll(1)
		case "pgup", "ctrl+b":
			m.scroll(-m.room())
		case "pgdown", "ctrl+f", "space":
			m.scroll(m.room())
		case "home", "g":
			m.scroll(-len(m.body()))
		case "end", "G":
			m.scroll(len(m.body()))
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

// scroll moves the list by n lines, within its bounds.
func (m *trustModel) scroll(n int) {
	m.top = max(min(m.top+n, len(m.body())-m.room()), 0)
}

func (m *trustModel) View() tea.View { return view(m.render()) }

// head and tail are the lines above and below the list.
func (m *trustModel) head() []string {
	st := m.r.st
	return []string{st.accent.Render("Do you trust the files in this folder?"), "", st.keyInput.Render(m.offer.Folder), ""}
}

func (m *trustModel) tail() []string {
	st := m.r.st
	r := &renderer{st: st, width: m.inner()}
	tail := append([]string{""}, r.wrap("Trusting this folder lets its files do the above. Trust it only if you trust where it came from.", 0)...)
	tail = append(tail, "", "Trust this folder?")
	for i, opt := range trustOptions {
		if i == m.sel {
			tail = append(tail, st.selected.Render(fmt.Sprintf("❯ %d. %s", i+1, opt)))
		} else {
			tail = append(tail, fmt.Sprintf("  %d. %s", i+1, opt))
		}
	}
	return append(tail, st.dim.Render("←→ select · enter confirm · ↑↓ PgUp PgDn scroll · esc no · yes is kept"))
}

func (m *trustModel) inner() int { return max(m.width-4, 10) }

// room is how many lines of the list fit: the screen less the border, the head, the tail and
// the two lines that say what is above and below.
func (m *trustModel) room() int {
	return max(m.height-2-len(m.head())-len(m.tail())-2, 1)
}

// body is the whole list, wrapped to the width: what runs first, each item in full.
func (m *trustModel) body() []string {
	st := m.r.st
	o := m.offer
	r := &renderer{st: st, width: m.inner()}
	var body []string
	section := func(title string, items []TrustItem) {
		if len(items) == 0 {
			return
		}
		body = append(body, title)
		for _, it := range items {
			text := it.What
			if it.Where != "" {
				text += "  " + st.dim.Render(it.Where)
			}
			ls := r.wrap(text, 4)
			ls[0] = "  " + strings.TrimPrefix(ls[0], "    ")
			body = append(body, ls...)
		}
	}
	for _, g := range o.Runs {
		section(g.Title, g.Items)
	}
	if o.Mode != nil {
		section("Permission mode at start (defaultMode):", []TrustItem{*o.Mode})
	}
	section("Allow rules (run without asking):", o.Rules)
	section("Additional directories:", o.Directories)
	section("Memory files (read as instructions, not only information):", o.Memory)
	return body
}

// render draws the offer in a box: the part of the list in view, with how much is above and
// below it, and the question always in view.
func (m *trustModel) render() string {
	st := m.r.st
	body, room := m.body(), m.room()
	var shown []string
	if len(body) <= room+2 {
		shown = body
	} else {
		// At the top the line that says what is above holds one more line of the list.
		end := min(m.top+room, len(body))
		if m.top == 0 {
			end = min(room+1, len(body))
		} else {
			shown = append(shown, st.dim.Render(fmt.Sprintf("↑ %d more lines above (↑ PgUp scroll)", m.top)))
		}
		shown = append(shown, body[m.top:end]...)
		if end == len(body) {
			shown = append(shown, st.dim.Render("— end of the list —"))
		} else {
			shown = append(shown, st.dim.Render(fmt.Sprintf("↓ %d more lines below (↓ PgDn scroll)", len(body)-end)))
		}
	}
	return m.box(append(append(m.head(), shown...), m.tail()...))
}
