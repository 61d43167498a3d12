package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/google/go-cmp/cmp"
)

// TestNotices: lines reported before the chat shows are kept and sent first, in order; standard
// error written in pieces becomes one notice a line; once the chat is gone the lines are kept
// again, and Flush prints them, with a line never finished.
func TestNotices(t *testing.T) {
	n := NewNotices()
	n.Warn("settings: an odd rule")
	n.Write([]byte("reins: MCP server a failed\nhalf a "))
	var got []string
	n.attach(func(m tea.Msg) {
		nm := m.(noticeMsg)
		got = append(got, nm.text)
	})
	n.Write([]byte("line\n\n"))
	n.Note("model API: overloaded; retrying in 1.1s (1/4)")
	want := []string{"warning: settings: an odd rule", "MCP server a failed", "half a line", "model API: overloaded; retrying in 1.1s (1/4)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("notices shown (-want +got):\n%s", diff)
	}
	n.attach(nil)
	n.Note("the sandbox refused 1 request")
	n.Write([]byte("no newline"))
	var out strings.Builder
	n.Flush(&out)
	if w := "reins: the sandbox refused 1 request\nreins: no newline\n"; out.String() != w {
		t.Errorf("Flush wrote %q, want %q", out.String(), w)
	}
	if len(got) != len(want) {
		t.Errorf("a notice went to a chat that had ended: %q", got[len(want):])
	}
}

// TestNoticeOnScreen: a notice is a line of the transcript, a warning marked as one.
func TestNoticeOnScreen(t *testing.T) {
	h := newHarness(t, 80, 12)
	n := NewNotices()
	n.attach(func(m tea.Msg) { h.send(m) })
	n.Note("model API: overloaded; retrying in 1.1s (2/4)")
	n.Warn("MCP server noisy failed: exited (stderr: fatal)")
	s := h.screen()
	for _, w := range []string{"model API: overloaded; retrying in 1.1s (2/4)", "warning: MCP server noisy failed: exited (stderr: fatal)"} {
		if !strings.Contains(s, w) {
			t.Errorf("the screen does not show %q:\n%s", w, s)
		}
	}
}
