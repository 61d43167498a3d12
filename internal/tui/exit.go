package tui

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// scrollbackLines bounds what is left in the terminal on exit: the end of a long session,
// rendered once, not all of it.
const scrollbackLines = 2000

// leaveScrollback writes the conversation and the command that resumes it to the terminal
// once the full-screen UI is gone, so that quitting keeps what was said in the scrollback, as
// Claude Code does.
func (m *Model) leaveScrollback(w io.Writer) error {
	if w == nil {
		w = os.Stdout
	}
	var b strings.Builder
	lines := m.r.window(m.entries, scrollbackLines, 0)
	for len(lines) > 0 && lines[0] == "" {
		lines = lines[1:]
	}
	for _, l := range lines {
		if m.cfg.NoColor {
			l = ansi.Strip(l)
		}
		b.WriteString(l + "\n")
	}
	if len(m.msgs) > 0 && m.cfg.SessionID != "" {
		fmt.Fprintf(&b, "Resume this conversation with: reins --resume %s\n", m.cfg.SessionID)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
