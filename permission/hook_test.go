package permission

import (
	"context"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// fixedAsker answers every ask with the same behaviour.
type fixedAsker struct{ b Behavior }

func (a fixedAsker) Ask(context.Context, AskRequest) (Decision, error) {
	return Decision{Behavior: a.b, Message: "asker said " + a.b.String()}, nil
}

func TestAuthorizeWithHook(t *testing.T) {
	proj := propProject(t)
	read, edit := pathTool{"Read", false}, pathTool{"Edit", true}
	rule := func(s string, b Behavior) Rule { return Rule{Value: ParseRule(s), Behavior: b, Source: SourceUser} }
	tests := []struct {
		name  string
		tool  pathTool
		path  string
		rules []Rule
		mode  Mode
		hook  Behavior
		asker Asker
		want  Behavior
		// wantReason is the reason type of the decision.
		wantReason ReasonType
	}{
		{name: "hook deny beats an allow rule", tool: read, path: "a.txt", rules: []Rule{rule("Read", Allow)}, hook: Deny, want: Deny, wantReason: ReasonHook},
		{name: "hook allow skips the prompt", tool: edit, path: "a.txt", hook: Allow, want: Allow, wantReason: ReasonHook},
		{name: "hook allow under a tool-wide deny", tool: edit, path: "a.txt", rules: []Rule{rule("Edit", Deny)}, hook: Allow, want: Deny, wantReason: ReasonRule},
		{name: "hook allow under a content deny", tool: read, path: "a.txt", rules: []Rule{rule("Read(a.txt)", Deny)}, hook: Allow, want: Deny, wantReason: ReasonRule},
		{name: "hook allow under an ask rule, headless", tool: edit, path: "a.txt", rules: []Rule{rule("Edit(a.txt)", Ask)}, hook: Allow, want: Deny, wantReason: ReasonRule},
		{name: "hook allow under an ask rule, a person allows", tool: edit, path: "a.txt", rules: []Rule{rule("Edit(a.txt)", Ask)}, hook: Allow, asker: fixedAsker{Allow}, want: Allow},
		{name: "hook allow on a protected path, headless", tool: edit, path: ".git/config", hook: Allow, want: Deny, wantReason: ReasonSafetyCheck},
		{name: "hook allow on a protected path in bypass", tool: edit, path: ".git/config", mode: ModeBypass, hook: Allow, want: Deny, wantReason: ReasonSafetyCheck},
		{name: "hook ask under a deny rule", tool: read, path: "a.txt", rules: []Rule{rule("Read(a.txt)", Deny)}, hook: Ask, asker: fixedAsker{Allow}, want: Deny, wantReason: ReasonRule},
		{name: "hook ask under an allow rule asks", tool: read, path: "a.txt", rules: []Rule{rule("Read", Allow)}, hook: Ask, asker: fixedAsker{Deny}, want: Deny},
		{name: "hook ask in bypass still asks", tool: edit, path: "a.txt", mode: ModeBypass, hook: Ask, want: Deny, wantReason: ReasonHook},
		{name: "hook ask in dontAsk denies", tool: read, path: "a.txt", mode: ModeDontAsk, hook: Ask, asker: fixedAsker{Allow}, want: Deny, wantReason: ReasonHook},
		{name: "no decision runs the pipeline", tool: read, path: "a.txt", rules: []Rule{rule("Read", Allow)}, hook: Passthrough, want: Allow, wantReason: ReasonRule},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mode := tt.mode
			if mode == "" {
				mode = ModeDefault
			}
			pc, err := New(Config{Mode: mode, Cwd: proj, Home: proj, Rules: tt.rules, BypassAvailable: mode == ModeBypass})
			if err != nil {
				t.Fatal(err)
			}
			tr := &Trace{}
			ctx := WithTrace(context.Background(), tr)
			var e Engine
			d, err := e.AuthorizeWithHook(ctx, pc, tt.tool, tt.path, HookVerdict{Behavior: tt.hook, Reason: "policy says so", Hooks: "check.sh"}, tt.asker)
			if err != nil {
				t.Fatal(err)
			}
			if d.Behavior != tt.want {
				t.Fatalf("got %s (%s), want %s", d.Behavior, d.Message, tt.want)
			}
			if tt.wantReason != "" && (d.Reason == nil || d.Reason.Type != tt.wantReason) {
				t.Errorf("reason %v, want %s", d.Reason, tt.wantReason)
			}
			if tt.hook != Passthrough && tt.hook == Deny && !strings.Contains(d.Message, "policy says so") {
				t.Errorf("message %q lacks the hook's reason", d.Message)
			}
			steps := tr.Steps()
			if len(steps) == 0 || steps[0].Name != "0 PreToolUse hook" {
				t.Errorf("trace does not start with the hook step: %+v", steps)
			}
		})
	}
}

// A hook's answer is an input of the pipeline: whatever the hooks say and whoever answers the
// ask, a call that a rule or check denies stays denied, and one that a deny rule covers is never
// allowed.
func TestPropertyHookNeverTurnsRuleDenyIntoAllow(t *testing.T) {
	proj := propProject(t)
	rapid.Check(t, func(t *rapid.T) {
		c := drawCase(t)
		hv := HookVerdict{Behavior: rapid.SampledFrom([]Behavior{Passthrough, Allow, Ask, Deny}).Draw(t, "hook"), Reason: "hook"}
		var asker Asker
		if b := rapid.SampledFrom([]Behavior{Passthrough, Allow, Deny}).Draw(t, "asker"); b != Passthrough {
			asker = fixedAsker{b}
		}
		pc, err := New(Config{Mode: c.mode, Cwd: proj, Home: proj, Rules: c.rules, BypassAvailable: c.mode == ModeBypass})
		if err != nil {
			t.Fatal(err)
		}
		var e Engine
		ruleBased := e.RuleBased(context.Background(), pc, c.tool, c.path)
		d, err := e.AuthorizeWithHook(context.Background(), pc, c.tool, c.path, hv, asker)
		if err != nil {
			t.Fatal(err)
		}
		if ruleBased.Behavior == Deny && d.Behavior != Deny {
			t.Fatalf("rule-based steps deny (%s) but hook %s with asker %v gave %s", ruleBased.Reason, hv.Behavior, asker, d.Behavior)
		}
		if covered(proj, c, Deny) && d.Behavior == Allow {
			t.Fatalf("a deny rule covers %s %s but hook %s gave allow", c.tool.name, c.path, hv.Behavior)
		}
		if ruleBased.Behavior == Ask && asker == nil && d.Behavior == Allow {
			t.Fatalf("a rule-based ask (%s) was allowed by hook %s with no one to ask", ruleBased.Reason, hv.Behavior)
		}
		if hv.Behavior == Deny && d.Behavior != Deny {
			t.Fatalf("hook deny gave %s", d.Behavior)
		}
	})
}
