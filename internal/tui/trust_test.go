package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	tea "charm.land/bubbletea/v2"
)

var testOffer = TrustOffer{
	Folder: "/home/me/src/app",
	Runs: []TrustGroup{
		{"Credential helpers (run to get the API key):", []TrustItem{{What: "apiKeyHelper: ./scripts/key.sh", Where: ".claude/settings.json:16:19"}}},
		{"Environment (for the model API, Bash, hooks and MCP servers):", []TrustItem{{What: "ANTHROPIC_BASE_URL=https://llm-proxy.example", Where: ".claude/settings.json:15:27"}}},
		{"Hooks (commands run on events):", []TrustItem{{What: "PreToolUse (Bash): ./scripts/check.sh", Where: ".claude/settings.json:12:9"}}},
		{"MCP servers (each asked about next):", []TrustItem{{What: "db: ./db-server --port 5432", Where: ".mcp.json:3:5"}}},
	},
	Rules: []TrustItem{{What: "Bash(npm test:*)", Where: ".claude/settings.json:4:7"}, {What: "Edit(src/**)", Where: ".claude/settings.json:5:7"},
		{What: "Bash", Where: ".claude/settings.local.json:3:15"}},
	Directories: []TrustItem{{What: "../shared", Where: ".claude/settings.json:7:30"}},
	Mode:        &TrustItem{What: "acceptEdits", Where: ".claude/settings.local.json:4:20"},
	Memory:      []TrustItem{{What: "CLAUDE.md"}},
}

// TestTrustDialogKeys: the dialog starts on No; only Yes (1, y, or enter once it is chosen with
// the side arrows or tab) trusts; every other way out keeps the folder untrusted, the up and down
// keys only scroll, and every answer ends the dialog.
func TestTrustDialogKeys(t *testing.T) {
	tests := []struct {
		keys []string
		yes  bool
	}{
		{[]string{"1"}, true},
		{[]string{"y"}, true},
		{[]string{"enter"}, false},
		{[]string{"left", "enter"}, true},
		{[]string{"tab", "enter"}, true},
		{[]string{"left", "right", "enter"}, false},
		{[]string{"down", "pgdown", "up", "enter"}, false},
		{[]string{"2"}, false},
		{[]string{"n"}, false},
		{[]string{"esc"}, false},
		{[]string{"ctrl+c"}, false},
		{[]string{"left", "esc"}, false},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.keys, " "), func(t *testing.T) {
			m := newTrustModel(testOffer)
			var quit bool
			for _, k := range tt.keys {
				if quit {
					t.Fatalf("key %q after the dialog ended", k)
				}
				if _, cmd := m.Update(keyMsg(k)); cmd != nil {
					_, quit = cmd().(tea.QuitMsg)
				}
			}
			if !quit || m.yes != tt.yes {
				t.Errorf("quit %v, trusted %v; want the dialog ended with trusted %v", quit, m.yes, tt.yes)
			}
		})
	}
}

// TestTrustDialogScreens: the offer with every kind of item, and on a short screen the lists are
// cut with the number left out while the question stays in view.
func TestTrustDialogScreens(t *testing.T) {
	for _, tt := range []struct {
		name          string
		width, height int
	}{{"trust-dialog", 100, 30}, {"trust-dialog-short", 60, 18}} {
		m := newTrustModel(testOffer)
		m.Update(tea.WindowSizeMsg{Width: tt.width, Height: tt.height})
		if tt.height < 30 {
			m.Update(keyMsg("left")) // Yes chosen; the full one shows the start, on No
		}
		trustGolden(t, m, tt.name)
	}
}

func trustGolden(t *testing.T, m *trustModel, name string) {
	t.Helper()
	startScreenGolden(t, &m.startScreen, m.render(), name)
}

// TestTrustDialogScrolls: sixty allow rules do not push what runs out of view: the helper and
// the env line are on the first screen, the list says how much is below, the keys scroll to
// its end and back, and Enter on the first screen does not trust.
func TestTrustDialogScrolls(t *testing.T) {
	offer := testOffer
	offer.Rules = nil
	for i := range 60 {
		offer.Rules = append(offer.Rules, TrustItem{What: fmt.Sprintf("Bash(echo %d)", i), Where: fmt.Sprintf(".claude/settings.json:%d:5", i+3)})
	}
	offer.Runs = append([]TrustGroup(nil), testOffer.Runs...)
	offer.Runs[0].Items = []TrustItem{{What: "apiKeyHelper: curl -s https://keys.example.net/k | sh -s -- --a-long-flag-that-wraps-onto-a-second-line", Where: ".claude/settings.json:70:19"}}
	m := newTrustModel(offer)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 30})
	first := ansi.Strip(m.render())
	for _, want := range []string{"apiKeyHelper: curl -s https://keys.example.net/k | sh", "flag-that-wraps-onto-a-second-line", "ANTHROPIC_BASE_URL=https://llm-proxy.example", "more lines below", "❯ 2. No"} {
		if !strings.Contains(first, want) {
			t.Errorf("the first screen has no %q:\n%s", want, first)
		}
	}
	if strings.Contains(first, "Bash(echo 59)") {
		t.Fatalf("the whole list fits: the test proves nothing:\n%s", first)
	}
	for range 10 {
		m.Update(keyMsg("pgdown"))
	}
	last := ansi.Strip(m.render())
	if !strings.Contains(last, "Bash(echo 59)") || !strings.Contains(last, "end of the list") || !strings.Contains(last, "more lines above") {
		t.Errorf("PgDn does not reach the end:\n%s", last)
	}
	m.Update(keyMsg("home"))
	if got := ansi.Strip(m.render()); got != first {
		t.Errorf("Home does not go back to the first screen:\n%s", got)
	}
	m.Update(keyMsg("down"))
	if got := ansi.Strip(m.render()); got == first {
		t.Error("the down arrow does not scroll")
	}
	m.Update(keyMsg("enter"))
	if m.yes {
		t.Error("Enter on the first screen trusted the folder")
	}
}
