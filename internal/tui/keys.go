package tui

import (
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
)

// keyMap is the chat's keys, declared once: the chat matches key presses against these
// bindings, the input's newline and the transcript's page keys are these bindings, and the
// "Keys:" lines of /help and the status line's hints are generated from their help.
type keyMap struct {
	Send      key.Binding
	Newline   key.Binding
	History   key.Binding
	Complete  key.Binding
	Mode      key.Binding
	Interrupt key.Binding
	Expand    key.Binding
	PageUp    key.Binding
	PageDown  key.Binding
	Quit      key.Binding
}

// keys is the chat's key map. Its bindings are values that are never changed: every model
// shares them.
var keys = keyMap{
	Send:      key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "send")),
	Newline:   key.NewBinding(key.WithKeys("ctrl+j", "alt+enter", "shift+enter"), key.WithHelp("ctrl+j/alt+enter", "newline")),
	History:   key.NewBinding(key.WithKeys("up", "down"), key.WithHelp("↑↓", "history")),
	Complete:  key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "completes @path and /command")),
	Mode:      key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "mode")),
	Interrupt: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "interrupt")),
	Expand:    key.NewBinding(key.WithKeys("ctrl+o"), key.WithHelp("ctrl+o", "expand tool output and thinking")),
	// A page key moves half a screen, so that what was at the edge stays in sight.
	PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "scroll up")),
	PageDown: key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdown", "scroll down")),
	Quit:     key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "interrupt, twice from an empty prompt quit")),
}

// scroll is the one help entry of the two page keys.
func (k keyMap) scroll() key.Binding {
	return key.NewBinding(
		key.WithKeys(append(k.PageUp.Keys(), k.PageDown.Keys()...)...),
		key.WithHelp(k.PageUp.Help().Key+"/"+k.PageDown.Help().Key, "scroll"))
}

// helpRows are the lines of the keys' help, each a group that reads together.
func (k keyMap) helpRows() [][]key.Binding {
	return [][]key.Binding{
		{k.Send, k.Newline, k.History, k.Complete},
		{k.Mode, k.Interrupt, k.Expand},
		{k.scroll(), k.Quit},
	}
}

// help renders the "Keys:" lines of /help: the help package's short view of each row, the
// rows continued under the first.
func (k keyMap) help() string {
	h := help.New()
	h.Styles = help.Styles{} // the transcript styles the whole block
	h.ShortSeparator = " · "
	const label = "Keys: "
	rows := make([]string, 0, 3)
	for _, row := range k.helpRows() {
		rows = append(rows, h.ShortHelpView(row))
	}
	return label + strings.Join(rows, " ·\n"+strings.Repeat(" ", len(label)))
}

// transcriptKeys are the viewport's keys over the transcript: only the page keys, as half
// pages; every other key belongs to the input.
func (k keyMap) transcriptKeys() viewport.KeyMap {
	off := key.NewBinding(key.WithDisabled())
	return viewport.KeyMap{
		PageUp: off, PageDown: off, Up: off, Down: off, Left: off, Right: off,
		HalfPageUp:   k.PageUp,
		HalfPageDown: k.PageDown,
	}
}
