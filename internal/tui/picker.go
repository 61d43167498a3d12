package tui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
)

// The /resume picker is a searchable menu of this folder's sessions, newest first: each shows
// its first prompt, how long ago it was last written, its git branch and its size. A session
// without a prompt (the empty one just started, another that never got one) has nothing to go
// back to and is left out, here and in /resume N.

// resumable are the folder's sessions that have a prompt, newest first.
func (m *Model) resumable() ([]SessionInfo, error) {
	ss, err := m.cfg.Sessions()
	if err != nil {
		return nil, err
	}
	out := ss[:0:0]
	for _, s := range ss {
		if strings.TrimSpace(s.Summary) != "" {
			out = append(out, s)
		}
	}
	return out, nil
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
	ss, err := m.resumable()
	if err != nil {
		return "", fmt.Errorf("cannot list sessions: %w", err)
	}
	if len(ss) == 0 {
		return "No saved sessions in this folder.", nil
	}
	now := m.cfg.now()
	u := &menu{title: "Resume a session of this folder", searchable: true, empty: "No session holds what you typed."}
	for _, s := range ss {
		u.items = append(u.items, menuItem{label: oneLine(s.Summary), detail: m.sessionDetail(s, now), value: s.ID})
	}
	u.choose = func(m *Model, it menuItem) (*menu, tea.Cmd) {
		if err := m.resume(it.value.(string)); err != nil {
			m.sayErr(err.Error())
		}
		return nil, nil
	}
	u.cancel = func(m *Model) { m.say("Resume cancelled: this session goes on.") }
	m.picker = u
	return "", nil
}

// sessionDetail is what the picker says of a session besides its prompt.
func (m *Model) sessionDetail(s SessionInfo, now time.Time) string {
	parts := []string{ago(now, s.Modified)}
	if s.Branch != "" {
		parts = append(parts, s.Branch)
	}
	if s.Size > 0 {
		parts = append(parts, humanBytes(s.Size))
	}
	if s.ID == m.cfg.SessionID {
		parts = append(parts, "this session")
	}
	return strings.Join(parts, " · ")
}

// ago says how long before now t was, as a person would.
func ago(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case t.IsZero():
		return "unknown time"
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return count(int(d/time.Minute), "minute") + " ago"
	case d < 24*time.Hour:
		return count(int(d/time.Hour), "hour") + " ago"
	case d < 30*24*time.Hour:
		return count(int(d/(24*time.Hour)), "day") + " ago"
	}
	return t.Format("2006-01-02")
}

// count is "1 file", "2 files".
func count(n int, noun string) string {
	return fmt.Sprintf("%d %s", n, plural(n, noun, noun+"s"))
}
