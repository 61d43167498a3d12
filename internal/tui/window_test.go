package tui

import (
	"context"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// A frame renders only the entries it shows, however long the session: the cost of a frame
// and the memory of rendered lines stay bounded.
func TestOnlyTheVisibleWindowIsRendered(t *testing.T) {
	pcCfg := newHarness(t, 80, 24).m.cfg
	cfg := *pcCfg
	cfg.History = history(10000)
	m := newModel(context.Background(), &cfg)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m.render()
	rendered := 0
	for _, e := range m.entries {
		if e.cache != nil {
			rendered++
		}
	}
	if len(m.entries) < 10000 {
		t.Fatalf("only %d entries for 10000 messages", len(m.entries))
	}
	if rendered == 0 || rendered > 24 {
		t.Errorf("%d of %d entries were rendered for a 24-line screen", rendered, len(m.entries))
	}
	// Scrolling up renders more, but still only what reaches the screen.
	m.Update(keyMsg("pgup"))
	m.render()
	if n := countRendered(m); n > 48 {
		t.Errorf("after one page up %d entries are rendered", n)
	}
}

func countRendered(m *Model) int {
	n := 0
	for _, e := range m.entries {
		if e.cache != nil {
			n++
		}
	}
	return n
}
