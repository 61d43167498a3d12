package app

import (
	"context"
	"testing"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/permission"
)

type hostAsker struct {
	answer permission.Behavior
	asked  []permission.AskRequest
}

func (h *hostAsker) Ask(_ context.Context, req permission.AskRequest) (permission.Decision, error) {
	h.asked = append(h.asked, req)
	return permission.Decision{Behavior: h.answer}, nil
}

// TestAskHost: the session's WebFetch domain rules of the moment decide a host first (deny:
// refused unasked; allow: through unasked; ask: asked); otherwise the main agent's asker
// answers, except in dontAsk, which never asks; with no agent or asker yet the answer is no.
func TestAskHost(t *testing.T) {
	rule := func(content string, b permission.Behavior) permission.Rule {
		return permission.Rule{Value: permission.RuleValue{Tool: "WebFetch", Content: content}, Behavior: b, Source: permission.SourceSession}
	}
	rules := []permission.Rule{rule("domain:ok.test", permission.Allow), rule("domain:*.bad.test", permission.Deny), rule("domain:ask.test", permission.Ask),
		rule("domain:bad.test", permission.Deny), rule("domain:also.bad.test", permission.Allow)}
	cases := []struct {
		host   string
		mode   permission.Mode
		answer permission.Behavior
		want   bool
		asked  bool
	}{
		{"ok.test", permission.ModeDefault, permission.Deny, true, false},
		{"also.bad.test", permission.ModeDefault, permission.Allow, false, false},
		{"bad.test", permission.ModeBypass, permission.Allow, false, false},
		{"ask.test", permission.ModeDefault, permission.Allow, true, true},
		{"other.test", permission.ModeDefault, permission.Allow, true, true},
		{"other.test", permission.ModeDefault, permission.Deny, false, true},
		{"other.test", permission.ModeBypass, permission.Deny, false, true},
		{"other.test", permission.ModeDontAsk, permission.Allow, false, false},
	}
	for _, c := range cases {
		pc, err := permission.New(permission.Config{Cwd: t.TempDir(), Mode: c.mode, Rules: rules, BypassAvailable: true})
		if err != nil {
			t.Fatal(err)
		}
		asker := &hostAsker{answer: c.answer}
		a := &App{Permissions: agent.NewPermissions(pc, nil), Agent: &agent.Agent{Asker: asker}}
		if got := a.askHost(t.Context(), c.host, 443); got != c.want || (len(asker.asked) > 0) != c.asked {
			t.Errorf("%s in %s answered %s: %v after %d asks, want %v (asked %v)", c.host, c.mode, c.answer, got, len(asker.asked), c.want, c.asked)
		}
		if c.asked && len(asker.asked) == 1 && asker.asked[0].Tool != permission.SandboxNetworkTool {
			t.Errorf("asked as %q", asker.asked[0].Tool)
		}
	}
	if (&App{}).askHost(t.Context(), "x.test", 443) {
		t.Error("with no session state the answer is yes")
	}
	pc, _ := permission.New(permission.Config{Cwd: t.TempDir()})
	if (&App{Permissions: agent.NewPermissions(pc, nil)}).askHost(t.Context(), "x.test", 443) {
		t.Error("with no agent the answer is yes")
	}
}
