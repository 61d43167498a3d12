package cli

import (
	"strings"
	"testing"
)

// TestInteractiveSubAgentCard: a sub-agent's tool calls show under the Agent call's card,
// with the sub-agent's type and description, and never as cards of their own.
func TestInteractiveSubAgentCard(t *testing.T) {
	bin := reinsBinary(t)
	e := newE2E(t, bin)
	e.anthropic(exploreTODO(t, e))
	r := startTUI(t, e)
	r.waitFor("default mode")
	r.typeText("where is the TODO?")
	r.keys("Enter")
	s := r.waitFor("Found it: main.go.", "Agent(Explore · find the TODO)", "2 tool uses")
	var nested []string
	for _, line := range strings.Split(s, "\n") {
		trimmed := strings.TrimLeft(line, " ⎿")
		if strings.HasPrefix(trimmed, "● Grep(") || strings.HasPrefix(trimmed, "● Read(") {
			if !strings.HasPrefix(line, "  ") {
				t.Errorf("a sub-agent's call is a top-level card: %q", line)
			}
			nested = append(nested, trimmed)
		}
	}
	if len(nested) != 2 {
		t.Errorf("want the Grep and Read calls nested under the card, got %q:\n%s", nested, s)
	}
	if strings.Contains(s, "● The TODO is in main.go.") {
		t.Errorf("the sub-agent's text is shown as the assistant's:\n%s", s)
	}
	r.quit()
	// Reopened, the card shows the calls again, read from the sub-agent's saved conversation.
	r2 := startTUI(t, e, "--continue")
	s = r2.waitFor("Resumed session", "Agent(Explore · find the TODO)", "● Grep(TODO)", "● Read(")
	if strings.Contains(s, "\n● Grep(") {
		t.Errorf("a resumed sub-agent call is a top-level card:\n%s", s)
	}
	r2.quit()
}
