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

// TestStatusCommand: /status names the model, the API and where the credential comes from.
func TestStatusCommand(t *testing.T) {
	h := newHarness(t, 120, 30)
	h.m.cfg.Provider, h.m.cfg.BaseURL = "anthropic", "http://127.0.0.1:9"
	h.m.cfg.Credential = "apiKeyHelper from /home/u/.claude/settings.json:2:19"
	h.m.cfg.CredentialNotes = []string{"apiKeyHelper from /p/.claude/settings.json:1:18 is not run: this project is not trusted"}
	h.typeText("/status")
	h.press("enter")
	got := h.m.entries[len(h.m.entries)-1].text
	for _, want := range []string{"Model: claude-test (anthropic)", "API: http://127.0.0.1:9",
		"Credential: apiKeyHelper from /home/u/.claude/settings.json:2:19\n  apiKeyHelper from /p/.claude/settings.json:1:18 is not run",
		"Working directory: " + h.dir, "Mode: default"} {
		if !strings.Contains(got, want) {
			t.Errorf("/status does not say %q:\n%s", want, got)
		}
	}
}
