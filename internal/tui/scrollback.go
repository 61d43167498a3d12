package tui

import (
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
)

// scrollback is the transcript's window: a viewport over the end of the conversation. The
// viewport keeps the position and does the scrolling (the page keys of the key map, the stop
// at the top, and the mouse wheel should the terminal send it: the chat does not ask for mouse
// events, so that the terminal keeps its own selection of text). It holds only the lines from
// the first one shown down to the end, because a frame must cost the same for ten messages
// and ten thousand (renderer.tail renders from the last entry backwards).
//
// The position is kept as back, the lines between the bottom of the window and the end of the
// transcript: at 0 the window follows what is written; scrolled up, it stays that many lines
// above the end. Following the end there is no position to keep, so the viewport is made on
// the first scroll and a session nobody scrolls never pays for it.
type scrollback struct {
	vp     *viewport.Model
	back   int
	height int // of the last frame, which a page key moves half of
}

// follow goes back to the end of the transcript.
func (s *scrollback) follow() { s.back = 0 }

// fill gives the viewport the end of the transcript, from room lines above the window's first
// line, and puts its offset back lines above the end.
func (s *scrollback) fill(r *renderer, entries []*entry, width, room int) []string {
	if s.vp == nil {
		vp := viewport.New()
		vp.KeyMap = keys.transcriptKeys()
		s.vp = &vp
	}
	s.vp.SetWidth(width)
	s.vp.SetHeight(s.height)
	// A rendered line holds no newline, so the viewport keeps these lines as they are.
	lines := r.tail(entries, s.height+s.back+room)
	s.vp.SetContentLines(lines)
	s.vp.SetYOffset(len(lines) - s.height - s.back)
	s.back = max(len(lines)-s.height-s.vp.YOffset(), 0)
	return lines
}

// frame renders the window of height lines. It cuts the lines at the viewport's offset
// itself: the viewport's View pads every line to the width through lipgloss, a cost on every
// keystroke, and fills a short transcript downwards where the chat keeps it on the input.
func (s *scrollback) frame(r *renderer, entries []*entry, width, height int) []string {
	s.height = height
	if s.back == 0 {
		return padTop(r.tail(entries, height), height)
	}
	lines := s.fill(r, entries, width, 0)
	top := s.vp.YOffset()
	return padTop(lines[top:min(top+height, len(lines))], height)
}

// update scrolls by a page key or the mouse wheel; it reports whether the message was one.
// The viewport is given one window of room above, as far as a page key goes.
func (s *scrollback) update(r *renderer, entries []*entry, width int, msg tea.Msg) bool {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		if !key.Matches(msg, keys.PageUp, keys.PageDown) {
			return false
		}
	case tea.MouseWheelMsg:
	default:
		return false
	}
	s.height = max(s.height, 1)
	s.fill(r, entries, width, s.height)
	*s.vp, _ = s.vp.Update(msg)
	s.back = max(s.vp.TotalLineCount()-s.height-s.vp.YOffset(), 0)
	return true
}
