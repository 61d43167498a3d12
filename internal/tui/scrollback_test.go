package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestScrollback: the transcript follows what is written; the page keys move it half a
// screen; it stops at the top of the conversation (it used to scroll on into a blank screen)
// and stays where it was put while more is written; pgdown back to the end follows again.
func TestScrollback(t *testing.T) {
	h := newHarness(t, 80, 12)
	for i := range 40 {
		h.m.say(fmt.Sprintf("line %02d", i))
	}
	shows := func(what string) bool { return strings.Contains(h.screen(), what) }
	if !shows("line 39") || shows("scrolled up") {
		t.Fatalf("the chat does not follow the end:\n%s", h.screen())
	}
	h.press("pgup")
	if shows("line 39") || !shows("scrolled up 5 lines · pgdown") {
		t.Fatalf("pgup did not scroll half the window:\n%s", h.screen())
	}
	h.m.say("line 40")
	if shows("line 40") || !shows("scrolled up 5 lines") {
		t.Errorf("a new line moved the scrolled window:\n%s", h.screen())
	}
	for range 40 {
		h.press("pgup")
	}
	if !shows("line 00") {
		t.Errorf("scrolling up does not stop at the top:\n%s", h.screen())
	}
	h.press("pgdown")
	if shows("line 00") {
		t.Errorf("pgdown at the top did not scroll down at once:\n%s", h.screen())
	}
	for range 40 {
		h.press("pgdown")
	}
	h.m.say("line 41")
	if !shows("line 41") || shows("scrolled up") {
		t.Errorf("back at the end the chat does not follow:\n%s", h.screen())
	}
	// The wheel scrolls too, should the terminal send it.
	h.send(tea.MouseWheelMsg{Button: tea.MouseWheelUp})
	if !shows("scrolled up 3 lines") {
		t.Errorf("the mouse wheel did not scroll:\n%s", h.screen())
	}
}
