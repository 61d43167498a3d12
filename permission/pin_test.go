package permission

import (
	"context"
	"path/filepath"
	"testing"

	"pgregory.net/rapid"
)

// pinnedTool is an MCP tool whose definition no longer matches the pins of some rules.
type pinnedTool struct {
	name    string
	changed map[string]bool // rule text → the definition changed since that rule's pin
}

func (p pinnedTool) Name() string { return p.name }
func (p pinnedTool) CheckPermissions(context.Context, *Context, any) Decision {
	return Decision{Behavior: Passthrough}
}
func (p pinnedTool) PinMatches(r *Rule) (bool, string) {
	if p.changed[r.Value.String()] {
		return false, "definition changed"
	}
	return true, ""
}

// An allow rule whose pin no longer matches never allows the call: only bypass mode (which
// relies on no rule) does. Deny still denies, and a matching pin still allows.
func TestPropertyChangedPinNeverAllowsByRule(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ruleTexts := []string{"mcp__srv", "mcp__srv__*", "mcp__srv__echo", "mcp__other", "mcp__srv__other"}
	rapid.Check(t, func(t *rapid.T) {
		mode := rapid.SampledFrom([]Mode{ModeDefault, ModeAcceptEdits, ModeDontAsk, ModeBypass, ModePlan}).Draw(t, "mode")
		var rules []Rule
		for i := range rapid.IntRange(0, 4).Draw(t, "n") {
			rules = append(rules, Rule{Value: ParseRule(rapid.SampledFrom(ruleTexts).Draw(t, "rule"+string(rune('a'+i)))),
				Behavior: rapid.SampledFrom([]Behavior{Allow, Ask, Deny}).Draw(t, "b"+string(rune('a'+i))), Source: SourceLocal})
		}
		changed := rapid.Bool().Draw(t, "changed")
		tool := pinnedTool{name: "mcp__srv__echo", changed: map[string]bool{}}
		if changed {
			for _, r := range ruleTexts {
				tool.changed[r] = true
			}
		}
		pc, err := New(Config{Mode: mode, Cwd: dir, Home: dir, Rules: rules, BypassAvailable: mode == ModeBypass})
		if err != nil {
			t.Fatal(err)
		}
		var e Engine
		d, err := e.Decide(context.Background(), pc, tool, nil)
		if err != nil {
			t.Fatal(err)
		}
		denied := pc.ToolWideRule(Deny, tool.name) != nil
		switch {
		case denied && d.Behavior != Deny:
			t.Fatalf("a deny rule did not deny: %v", d.Behavior)
		case d.Behavior == Allow && changed && mode != ModeBypass:
			t.Fatalf("allowed by %v although the definition changed", d.Reason)
		case !changed && !denied && pc.ToolWideRule(Ask, tool.name) == nil && pc.ToolWideRule(Allow, tool.name) != nil && d.Behavior != Allow:
			t.Fatalf("a matching pin under an allow rule did not allow: %v", d.Behavior)
		}
	})
}
