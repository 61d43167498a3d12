package tui

import (
	"strings"

	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
)

// inputBox is where the person types: a text area that grows with its text up to
// inputMaxHeight lines, the messages sent before it (↑↓ go through them, and what was being
// typed comes back at the end), and the completions of a tab listed above it.
type inputBox struct {
	textarea.Model
	history []string
	histPos int
	draft   string
	// completions are the files or commands the word before the cursor could be.
	completions []string
}

const inputMaxHeight = 8

func newInputBox(history []string) inputBox {
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.Prompt = "> "
	ta.Placeholder = "Type a message · /help for commands"
	ta.SetHeight(1)
	ta.MaxHeight = inputMaxHeight
	ta.KeyMap.InsertNewline = keys.Newline
	ta.Focus()
	return inputBox{Model: ta, history: history, histPos: len(history)}
}

// fit grows or shrinks the box to its text.
func (b *inputBox) fit() { b.SetHeight(min(max(b.LineCount(), 1), inputMaxHeight)) }

func (b *inputBox) resize(width int) {
	b.SetWidth(max(width-2, 10))
	b.fit()
}

// set replaces the text.
func (b *inputBox) set(v string) {
	b.SetValue(v)
	b.fit()
}

func (b *inputBox) clear() {
	b.Reset()
	b.fit()
}

func (b *inputBox) insert(s string) {
	b.InsertString(s)
	b.fit()
}

// update is the text area's own handling of a message (typing, the cursor).
func (b *inputBox) update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	b.Model, cmd = b.Model.Update(msg)
	b.fit()
	return cmd
}

// push records a message sent, once if it is sent twice in a row.
func (b *inputBox) push(text string) {
	if n := len(b.history); n == 0 || b.history[n-1] != text {
		b.history = append(b.history, text)
	}
	b.histPos = len(b.history)
	b.draft = ""
}

// browse moves through the messages sent when the cursor is on the first line (up) or the
// last line (down); it reports whether it did, or the key moves the cursor.
func (b *inputBox) browse(up bool) bool {
	switch {
	case up && b.Line() == 0 && b.histPos > 0:
		if b.histPos == len(b.history) {
			b.draft = b.Value()
		}
		b.histPos--
		b.set(b.history[b.histPos])
	case !up && b.Line() == b.LineCount()-1 && b.histPos < len(b.history):
		b.histPos++
		if b.histPos == len(b.history) {
			b.set(b.draft)
		} else {
			b.set(b.history[b.histPos])
		}
	default:
		return false
	}
	return true
}

// lines draws the completions and the box.
func (b *inputBox) lines(st *styles) []string {
	var out []string
	if len(b.completions) > 0 {
		out = append(out, st.dim.Render("  "+strings.Join(b.completions, "  ")))
	}
	return append(out, strings.Split(b.View(), "\n")...)
}
