package tui

import (
	"strings"
	"testing"

	"github.com/reinsdev/reins/permission"
)

// TestTaintCommandAndClear: /taint names the secret read that tainted the session, and /clear
// ends the taint with the conversation.
func TestTaintCommandAndClear(t *testing.T) {
	h := newHarness(t, 120, 30)
	slash := func(cmd string) string {
		h.typeText(cmd)
		h.press("enter")
		return h.m.entries[len(h.m.entries)-1].text
	}
	if got := slash("/taint"); !strings.Contains(got, "Not tainted") {
		t.Errorf("a clean session: %q", got)
	}
	h.perms.Context().Taint().Record(permission.SecretRead{Path: h.dir + "/.env", Pattern: ".env*", Tool: "Read", CallID: "toolu_7"})
	got := slash("/taint")
	if !strings.Contains(got, "Tainted") || !strings.Contains(got, h.dir+"/.env read by Read (toolu_7)") {
		t.Errorf("a tainted session: %q", got)
	}
	slash("/clear")
	if h.perms.Context().Taint().Tainted() {
		t.Error("/clear left the session tainted")
	}
	if got := slash("/taint"); !strings.Contains(got, "Not tainted") {
		t.Errorf("after /clear: %q", got)
	}
}
