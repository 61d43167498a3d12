package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// pickerRows is how many sessions the /resume picker shows at once; it scrolls for more.
const pickerRows = 10

// sessionPicker is the /resume picker: ↑↓ move, Enter resumes through Config.Resume, Esc
// leaves the session as it is.
type sessionPicker struct {
	sessions []SessionInfo
	sel      int
}

// openPicker shows the picker over this folder's sessions, or the list form when switching
// is not available or there is nothing to pick.
func (m *Model) openPicker() (string, error) {
	if m.cfg.Sessions == nil || m.cfg.Resume == nil {
		return m.sessionsList(), nil
	}
	if m.running {
		return "", fmt.Errorf("wait for the turn to finish, or press Esc, before /resume")
	}
	ss, err := m.cfg.Sessions()
	if err != nil {
		return "", fmt.Errorf("cannot list sessions: %w", err)
	}
	if len(ss) == 0 {
		return "No saved sessions in this folder.", nil
	}
	m.picker = &sessionPicker{sessions: ss}
	return "", nil
}

// pickerKey moves the picker, or closes it with a choice or none.
func (m *Model) pickerKey(msg tea.KeyPressMsg) {
	p := m.picker
	switch msg.String() {
	case "up", "k":
		p.sel = (p.sel + len(p.sessions) - 1) % len(p.sessions)
	case "down", "j":
		p.sel = (p.sel + 1) % len(p.sessions)
	case "home":
		p.sel = 0
	case "end":
		p.sel = len(p.sessions) - 1
	case "esc":
		m.picker = nil
		m.entries = append(m.entries, &entry{kind: entryInfo, text: "Resume cancelled: this session goes on."})
	case "enter":
		m.picker = nil
		if err := m.resume(p.sessions[p.sel].ID); err != nil {
			m.entries = append(m.entries, &entry{kind: entryError, text: err.Error()})
		}
	}
}

// view draws the picker where the input is: a window of pickerRows around the selection.
func (p *sessionPicker) view(r *renderer, current string, width int) []string {
	st := r.st
	lines := []string{st.accent.Render("Resume a session of this folder"), ""}
	first := min(max(p.sel-pickerRows/2, 0), max(len(p.sessions)-pickerRows, 0))
	last := min(first+pickerRows, len(p.sessions))
	if first > 0 {
		lines = append(lines, st.dim.Render(fmt.Sprintf("    ↑ %d more", first)))
	}
	for i := first; i < last; i++ {
		s := p.sessions[i]
		mark := "  "
		if i == p.sel {
			mark = "❯ "
		}
		this := ""
		if s.ID == current {
			this = " (this session)"
		}
		line := fmt.Sprintf("%s%s  %s%s", mark, s.Modified.Format("2006-01-02 15:04"), s.ID, this)
		if s.Summary != "" {
			line += "  " + truncRunes(s.Summary, max(width-len(line)-4, 10))
		}
		if i == p.sel {
			line = st.accent.Render(line)
		}
		lines = append(lines, line)
	}
	if last < len(p.sessions) {
		lines = append(lines, st.dim.Render(fmt.Sprintf("    ↓ %d more", len(p.sessions)-last)))
	}
	lines = append(lines, "", st.dim.Render("↑↓ select · enter resume · esc cancel"))
	box := st.border.Width(width).Render(strings.Join(lines, "\n"))
	return strings.Split(box, "\n")
}
