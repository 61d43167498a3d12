package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/reinsdev/reins/mcp/client"
)

// TestOverlaysQueue: a permission prompt that arrives while an MCP server's form is open is
// shown first (the turn cannot go on without it) and takes the keys and pasted text; the form
// comes back once it is answered; quitting answers every ask still open, each once.
func TestOverlaysQueue(t *testing.T) {
	h := newHarness(t, 80, 30)
	form := h.elicit(client.ElicitRequest{Server: "hotel", Mode: "form", Message: "Book a room?"})
	if !strings.Contains(h.screen(), "MCP server hotel asks for input") {
		t.Fatalf("the form is not shown:\n%s", h.screen())
	}
	first := h.ask("Bash", `{"command":"touch a"}`)
	if s := h.screen(); !strings.Contains(s, "Do you want to proceed?") || strings.Contains(s, "asks for input") {
		t.Fatalf("the permission prompt does not come before the form:\n%s", s)
	}
	h.send(tea.PasteMsg{Content: "pasted"})
	h.press("esc")
	if a := received(t, first); a.kind != ansNo {
		t.Errorf("esc answered %v", a.kind)
	}
	if s := h.screen(); !strings.Contains(s, "asks for input") || strings.Contains(s, "pasted") {
		t.Fatalf("after the prompt the form is not back as it was:\n%s", s)
	}
	second := h.ask("Bash", `{"command":"touch b"}`)
	h.press("ctrl+c", "ctrl+c")
	if !h.m.quitting || len(h.m.asks) != 0 {
		t.Fatalf("ctrl+c twice did not quit and close the asks (%d open)", len(h.m.asks))
	}
	if a := received(t, second); a.kind != ansNo {
		t.Errorf("quitting answered the prompt %v", a.kind)
	}
	if r, ok := formResult(t, form); !ok || r.Action != client.ElicitCancel {
		t.Errorf("quitting answered the form %+v (answered: %v)", r, ok)
	}
}
