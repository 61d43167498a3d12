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

// keyName is a key press's name as key.Matches reads it.
type keyName string

func (k keyName) String() string { return string(k) }

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
	const label = "Keys: "
	rows := make([]string, 0, 3)
	for _, row := range k.helpRows() {
		rows = append(rows, hintLine(row...))
	}
	return label + strings.Join(rows, " ·\n"+strings.Repeat(" ", len(label)))
}

// hintLine is the help package's short view of bindings, unstyled (who shows it styles the
// whole line), "key what" separated by " · ".
func hintLine(bindings ...key.Binding) string {
	h := help.New()
	h.Styles = help.Styles{}
	h.ShortSeparator = " · "
	return h.ShortHelpView(bindings)
}

// choiceKeys are the keys of an overlay's list of choices. Each overlay declares its own,
// worded for it: its key presses are matched against them and its hint line is their help.
type choiceKeys struct {
	Up, Down, Choose, Cancel key.Binding
}

// selecting is the one help entry of the keys that move the selection.
func (k choiceKeys) selecting() key.Binding {
	return key.NewBinding(key.WithKeys(append(k.Up.Keys(), k.Down.Keys()...)...), key.WithHelp("↑↓", "select"))
}

// hints is the overlay's hint line: moving, then extra (the overlay's own keys shown before
// the choice), choosing, cancelling, then after.
func (k choiceKeys) hints(extra []key.Binding, after ...key.Binding) string {
	bs := append([]key.Binding{k.selecting()}, extra...)
	return hintLine(append(append(bs, k.Choose, k.Cancel), after...)...)
}

// promptKeys are the keys every prompt over a tool call shares besides its choice keys: the
// body's scrolling and an option's number.
var promptKeys = struct {
	PageUp, PageDown, Number key.Binding
}{
	PageUp:   key.NewBinding(key.WithKeys("pgup")),
	PageDown: key.NewBinding(key.WithKeys("pgdown")),
	Number:   key.NewBinding(key.WithKeys("1", "2", "3", "4", "5", "6", "7", "8", "9")),
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
