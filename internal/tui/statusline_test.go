package tui

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/reinsdev/reins/permission"
)

// The status command gets the session JSON, runs again when what it says changes (here, the
// mode), never while a run is under way, and at most once per StatusThrottle; its first line
// is shown under the input, indented and cut to the width.
func TestStatusCommandScheduling(t *testing.T) {
	h := newHarness(t, 40, 12)
	var runs atomic.Int32
	var inputs []map[string]any
	release := make(chan struct{})
	h.m.cfg.StatusLine = &StatusCommand{Padding: 2, Version: "v1", ProjectDir: h.dir, OutputStyle: "default",
		Run: func(_ context.Context, in []byte) (string, error) {
			runs.Add(1)
			var m map[string]any
			json.Unmarshal(in, &m)
			inputs = append(inputs, m)
			<-release
			return "mode=" + m["permission_mode"].(string) + " " + strings.Repeat("x", 100) + "\nsecond line\n", nil
		}}
	s := statusModel{h.m}
	cmd := s.statusMaybe()
	if cmd == nil {
		t.Fatal("the status command did not start")
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	// While it runs, a change starts nothing.
	if err := h.perms.Update(t.Context(), permission.Update{Type: permission.SetMode, Destination: permission.SourceSession, Mode: permission.ModeAcceptEdits}); err != nil {
		t.Fatal(err)
	}
	if c := s.statusMaybe(); c != nil {
		t.Fatal("a second run started while the first was under way")
	}
	close(release)
	_, tick := s.Update(<-done)
	if got := s.commandStatus(); !strings.HasPrefix(got, "  mode=default xxx") || len([]rune(got)) > 40 || !strings.HasSuffix(got, "…") {
		t.Errorf("line %q", got)
	}
	in := inputs[0]
	model := in["model"].(map[string]any)
	ws := in["workspace"].(map[string]any)
	if in["session_id"] != "session-1" || model["id"] != "claude-test" || ws["project_dir"] != h.dir || in["version"] != "v1" ||
		in["cost"].(map[string]any)["total_cost_usd"] != 0.0 || in["context_window"] == nil || in["output_style"].(map[string]any)["name"] != "default" {
		t.Errorf("input %v", in)
	}
	// The mode changed during the run: the next run waits for the throttle, then goes.
	if tick == nil {
		t.Fatal("no tick was scheduled for the change")
	}
	h.now = h.now.Add(StatusThrottle / 3)
	if c := s.statusMaybe(); c != nil {
		t.Fatal("a second tick was scheduled")
	}
	h.now = h.now.Add(StatusThrottle)
	_, c := s.Update(statusTickMsg{})
	if c == nil {
		t.Fatal("the change was never run")
	}
	s.Update(c())
	if !strings.Contains(s.commandStatus(), "mode=acceptEdits") || runs.Load() != 2 {
		t.Errorf("after the mode change: %q, %d runs", s.commandStatus(), runs.Load())
	}
	// Nothing changed: nothing runs, whatever the time.
	h.now = h.now.Add(time.Hour)
	if c := s.statusMaybe(); c != nil {
		t.Error("the command ran again with nothing changed")
	}
}

func TestFirstLine(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain\nsecond", "plain"},
		{"\x1b[32mgreen\x1b[0m", "\x1b[32mgreen\x1b[0m"},
		{"title\x1b]0;pwned\x07 end", "title]0;pwned end"},
		{"move\x1b[2J\x1b[Hhome", "move[2J[Hhome"},
		{"tab\there\r", "tab here"},
		{strings.Repeat("y", 10000), strings.Repeat("y", maxStatusLine)},
	}
	for _, tt := range tests {
		if got := firstLine(tt.in); got != tt.want {
			t.Errorf("firstLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := displayName("claude-sonnet-4-5-20250929"); got != "Sonnet 4.5" {
		t.Errorf("displayName = %q", got)
	}
}

// FuzzFirstLine: whatever a status command prints, the line shown has no line break, no
// control character and no escape sequence but colours.
func FuzzFirstLine(f *testing.F) {
	for _, s := range []string{"ok", "\x1b[31mred\x1b[0m\nx", "\x1b]0;t\x07", "\x1b[2J", "a\tb\rc", "\x00\x7f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := firstLine(s)
		rest := sgrAll.ReplaceAllString(got, "")
		for i := 0; i < len(rest); i++ {
			if c := rest[i]; c < 0x20 || c == 0x7f {
				t.Fatalf("firstLine(%q) = %q keeps %#x", s, got, c)
			}
		}
		if len(got) > maxStatusLine {
			t.Fatalf("a line of %d bytes", len(got))
		}
	})
}

var sgrAll = regexp.MustCompile(`\x1b\[[0-9;]*m`)
