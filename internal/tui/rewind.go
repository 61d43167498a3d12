package tui

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// Checkpoints keeps a file checkpoint per message of the chat, for /rewind.
type Checkpoints interface {
	// Begin starts the checkpoint of message id and returns the context its turn runs in.
	Begin(ctx context.Context, id, label string) (context.Context, error)
	// Changed lists the files changed since message id began (its own turn's and later).
	Changed(id string) []string
	// Rewind puts the files back as they were before message id; the text says what it did.
	// An error means the rewind is not done (the text, if any, says what it did put back).
	Rewind(ctx context.Context, id string) (string, error)
}

// rewindPoint is a message of the chat that /rewind can go back to: where the conversation and
// the transcript stood before it.
type rewindPoint struct {
	id, text string
	msgs     int // len(m.msgs) before the message
	entries  int // len(m.entries) before the message's own entry
}

// newPointID names a message's checkpoint.
func newPointID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// beginPoint records the message about to be sent and starts its checkpoint; ctx is returned
// as it is when the chat keeps none or the checkpoint cannot start (the note says so).
func (m *Model) beginPoint(ctx context.Context, text string) context.Context {
	if m.cfg.Checkpoints == nil {
		return ctx
	}
	p := rewindPoint{id: newPointID(), text: text, msgs: len(m.msgs), entries: max(len(m.entries)-1, 0)}
	c, err := m.cfg.Checkpoints.Begin(ctx, p.id, text)
	if err != nil {
		m.sayErr("no checkpoint for this message: " + err.Error())
		return ctx
	}
	m.points = append(m.points, p)
	return c
}

// rewindPicker is /rewind: first a message, then what to put back.
type rewindPicker struct {
	sel     int
	chosen  bool
	changed [][]string
}

// Rewind choices, by their number key.
const (
	rewindBoth         = "1"
	rewindCode         = "2"
	rewindConversation = "3"
)

func (m *Model) rewindCommand() {
	switch {
	case m.cfg.Checkpoints == nil:
		m.sayErr("this chat keeps no checkpoints")
	case m.running:
		m.sayErr("wait for the turn to finish, or press Esc, before /rewind")
	case len(m.points) == 0:
		m.say("Nothing to rewind: no message has been sent in this chat yet.")
	default:
		p := &rewindPicker{sel: len(m.points) - 1}
		for _, pt := range m.points {
			p.changed = append(p.changed, m.cfg.Checkpoints.Changed(pt.id))
		}
		m.picker = p
	}
}

// rewindKeys are the keys of /rewind's list of messages.
var rewindKeys = choiceKeys{
	Up:     key.NewBinding(key.WithKeys("up", "k")),
	Down:   key.NewBinding(key.WithKeys("down", "j")),
	Choose: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "choose")),
	Cancel: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
}

// Update moves the picker, or closes it with a choice or none.
func (p *rewindPicker) Update(m *Model, msg tea.Msg) (bool, tea.Cmd) {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return false, nil
	}
	n := len(m.points)
	switch k := km.String(); {
	case key.Matches(km, rewindKeys.Cancel):
		m.say("Rewind cancelled.")
		return true, nil
	case !p.chosen && key.Matches(km, rewindKeys.Up):
		p.sel = (p.sel + n - 1) % n
	case !p.chosen && key.Matches(km, rewindKeys.Down):
		p.sel = (p.sel + 1) % n
	case !p.chosen && key.Matches(km, rewindKeys.Choose):
		p.chosen = true
	case p.chosen && (k == rewindBoth || k == rewindCode || k == rewindConversation):
		m.rewindTo(p.sel, k)
		return true, nil
	}
	return false, nil
}

// rewindTo goes back to before point i: the files, the conversation, or both.
func (m *Model) rewindTo(i int, choice string) {
	pt := m.points[i]
	if choice != rewindConversation {
		text, err := m.cfg.Checkpoints.Rewind(m.ctx, pt.id)
		if err != nil {
			// Not done: what was put back is said, and the conversation stays as it is.
			if text != "" {
				m.say(text)
			}
			m.sayErr("rewind: " + err.Error())
			return
		}
		if choice == rewindCode {
			m.say(text)
			return
		}
		defer m.say(text)
	}
	m.msgs = m.msgs[:min(pt.msgs, len(m.msgs))]
	m.entries = m.entries[:min(pt.entries, len(m.entries))]
	m.points = m.points[:i]
	m.scrollback.follow()
	m.input.set(pt.text)
	m.say("Conversation rewound to before: " + truncRunes(pt.text, 60) + " (the message is back in the input)")
}

// View draws the picker where the input is.
func (p *rewindPicker) View(m *Model, width, _ int) []string {
	st, points := m.r.st, m.points
	lines := []string{st.accent.Render("Rewind to before a message"), ""}
	for i, pt := range points {
		mark := "  "
		if i == p.sel {
			mark = "❯ "
		}
		files := "no file changes"
		if n := len(p.changed[i]); n > 0 {
			files = count(n, "file") + " changed since"
		}
		line := fmt.Sprintf("%s%s  · %s", mark, truncRunes(pt.text, max(width-34, 10)), files)
		if i == p.sel {
			line = st.accent.Render(line)
		}
		lines = append(lines, line)
	}
	if p.chosen {
		if ch := p.changed[p.sel]; len(ch) > 0 {
			lines = append(lines, "", st.dim.Render("Files: "+truncRunes(strings.Join(ch, ", "), max(width-12, 10))))
		}
		lines = append(lines, "", rewindBoth+" code and conversation · "+rewindCode+" code only · "+rewindConversation+" conversation only · esc cancel")
	} else {
		lines = append(lines, "", st.dim.Render(rewindKeys.hints(nil)))
	}
	box := st.border.Width(width).Render(strings.Join(lines, "\n"))
	return strings.Split(box, "\n")
}
