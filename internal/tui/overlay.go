package tui

import (
	"slices"

	tea "charm.land/bubbletea/v2"
)

// An overlay takes the input's place: a question the agent waits on (permissionPrompt,
// planApproval, questionPrompt, an MCP server's form) or a picker the person opened (a menu,
// /rewind). Each is its own small model. The chat hands the active one the key presses and
// pasted text, draws its View where the input is, and closes it when Update reports it done.
type overlay interface {
	Update(m *Model, msg tea.Msg) (done bool, cmd tea.Cmd)
	// View renders the overlay in width columns and, where it can give way, height lines.
	View(m *Model, width, height int) []string
}

// An ask is an overlay something waits on. It is answered exactly once: by the person (its
// Update has sent the answer when it reports done), by refuse when the chat quits, or by
// nobody when it is withdrawn (the request was settled elsewhere).
type ask interface {
	overlay
	// request is the permission request asked about, or nil (an MCP server's form).
	request() *askMsg
	refuse()
	withdrawnBy(msg tea.Msg) bool
}

// overlays are the open overlays: the asks waiting, the first one shown, and a picker, shown
// when no ask waits.
type overlays struct {
	asks   []ask
	picker overlay
}

// active is the overlay shown: the first ask, or else the open picker.
func (m *overlays) active() overlay {
	if len(m.asks) > 0 {
		return m.asks[0]
	}
	if m.picker != nil {
		return m.picker
	}
	return nil
}

// queue adds an ask. The prompts over tool calls come before MCP servers' forms: the turn
// cannot go on without them.
func (m *overlays) queue(a ask) {
	at := len(m.asks)
	if a.request() != nil {
		at = slices.IndexFunc(m.asks, func(q ask) bool { return q.request() == nil })
		if at < 0 {
			at = len(m.asks)
		}
	}
	m.asks = slices.Insert(m.asks, at, a)
}

// withdraw drops the asks msg withdraws.
func (m *overlays) withdraw(msg tea.Msg) {
	m.asks = slices.DeleteFunc(m.asks, func(a ask) bool { return a.withdrawnBy(msg) })
}

// overlayUpdate hands msg to the active overlay and closes it when it is done. A picker is
// closed only if it is still the one open: its choice may have opened the next.
func (m *Model) overlayUpdate(o overlay, msg tea.Msg) tea.Cmd {
	done, cmd := o.Update(m, msg)
	if !done {
		return cmd
	}
	if len(m.asks) > 0 && m.asks[0] == o {
		m.asks = m.asks[1:]
		if req := o.(ask).request(); req != nil {
			m.answered(*req)
		}
	} else if m.picker == o {
		m.picker = nil
	}
	return cmd
}

// answered takes the "waiting for your answer" mark off the call a prompt was about: the call
// runs from now.
func (m *Model) answered(a askMsg) {
	if c := m.cards[m.cardFor(a)]; c != nil {
		c.progress = ""
		c.start = m.cfg.now()
		c.touch()
		return
	}
	m.answeredSub(a.req.Tool)
}
