package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

var testOffer = TrustOffer{
	Folder: "/home/me/src/app",
	Rules: []TrustItem{{What: "Bash(npm test:*)", Where: ".claude/settings.json:4:7"}, {What: "Edit(src/**)", Where: ".claude/settings.json:5:7"},
		{What: "Bash", Where: ".claude/settings.local.json:3:15"}},
	Directories: []TrustItem{{What: "../shared", Where: ".claude/settings.json:7:30"}},
	Mode:        &TrustItem{What: "acceptEdits", Where: ".claude/settings.local.json:4:20"},
	Hooks:       []TrustItem{{What: "PreToolUse (Bash): ./scripts/check.sh", Where: ".claude/settings.json:12:9"}},
	Servers:     []TrustItem{{What: "db: ./db-server --port 5432", Where: ".mcp.json:3:5"}},
	Env:         []TrustItem{{What: "ANTHROPIC_BASE_URL=https://llm-proxy.example", Where: ".claude/settings.json:15:27"}},
	Memory:      []TrustItem{{What: "CLAUDE.md"}},
}

// TestTrustDialogKeys: only Yes (1, y, or enter on it) trusts; every other way out keeps the
// folder untrusted, and every answer ends the dialog.
func TestTrustDialogKeys(t *testing.T) {
	tests := []struct {
		keys []string
		yes  bool
	}{
		{[]string{"1"}, true},
		{[]string{"y"}, true},
		{[]string{"enter"}, true},
		{[]string{"down", "up", "enter"}, true},
		{[]string{"2"}, false},
		{[]string{"n"}, false},
		{[]string{"esc"}, false},
		{[]string{"ctrl+c"}, false},
		{[]string{"down", "enter"}, false},
		{[]string{"tab", "enter"}, false},
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
		m.Update(keyMsg("down"))
		trustGolden(t, m, tt.name)
	}
}

func trustGolden(t *testing.T, m *trustModel, name string) {
	t.Helper()
	startScreenGolden(t, &m.startScreen, m.render(), name)
}
