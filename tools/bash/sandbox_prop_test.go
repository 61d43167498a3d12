package bash

import (
	"context"
	"encoding/json"
	"testing"

	"pgregory.net/rapid"

	"github.com/reinsdev/reins/permission"
)

// TestPropertySandboxNeverLoosensDenyOrSafety: turning the sandbox and its auto-allow on never
// turns a deny of a rule into anything else, never allows what asks for a content ask rule or a safety
// check without it, and allows by the auto-allow only calls that will run sandboxed.
func TestPropertySandboxNeverLoosensDenyOrSafety(t *testing.T) {
	dir := t.TempDir()
	commands := []string{"npm test", "rm -rf build", "npm test && rm -rf x", "git push origin main", "echo x > .git/hooks/pre-commit",
		"eval \"$(echo rm x)\"", "docker build .", "cat /etc/passwd", "touch ../outside", "ls", "make && make install", "sudo rm -rf /tmp/x"}
	rules := []string{"Bash", "Bash(rm:*)", "Bash(git push:*)", "Bash(npm test)", "Bash(make:*)", "Bash(docker:*)", "Bash(npm:*)"}
	modes := []permission.Mode{permission.ModeDefault, permission.ModeAcceptEdits, permission.ModePlan, permission.ModeDontAsk, permission.ModeBypass}
	bt := New(Options{}).BashTool()
	rapid.Check(t, func(rt *rapid.T) {
		var rs []permission.Rule
		for i := range rapid.IntRange(0, 4).Draw(rt, "n") {
			rs = append(rs, permission.Rule{
				Value:    permission.ParseRule(rapid.SampledFrom(rules).Draw(rt, "rule"+string(rune('a'+i)))),
				Behavior: rapid.SampledFrom([]permission.Behavior{permission.Allow, permission.Ask, permission.Deny}).Draw(rt, "b"+string(rune('a'+i))),
				Source:   permission.SourceLocal,
			})
		}
		mode := rapid.SampledFrom(modes).Draw(rt, "mode")
		policy := permission.SandboxPolicy{
			Enabled:          true,
			AutoAllowBash:    rapid.Bool().Draw(rt, "auto"),
			AllowUnsandboxed: rapid.Bool().Draw(rt, "unsandboxed"),
		}
		if rapid.Bool().Draw(rt, "excl") {
			policy.ExcludedCommands = []string{"docker:*"}
		}
		raw, _ := json.Marshal(map[string]any{"command": rapid.SampledFrom(commands).Draw(rt, "command"), "dangerouslyDisableSandbox": rapid.Bool().Draw(rt, "disable")})
		in, err := bt.Decode(raw)
		if err != nil {
			rt.Fatal(err)
		}
		decideWith := func(p permission.SandboxPolicy) permission.Decision {
			pc, err := permission.New(permission.Config{Mode: mode, Cwd: dir, Home: dir, Rules: rs, Sandbox: p, BypassAvailable: mode == permission.ModeBypass})
			if err != nil {
				rt.Fatal(err)
			}
			var e permission.Engine
			d, err := e.Decide(context.Background(), pc, bt, in)
			if err != nil {
				rt.Fatal(err)
			}
			return d
		}
		off, on := decideWith(permission.SandboxPolicy{}), decideWith(policy)
		// dontAsk's denial of an unanswered ask is not a rule: an auto-allowed call asks no one.
		if off.Behavior == permission.Deny && (off.Reason == nil || off.Reason.Type != permission.ReasonMode) && on.Behavior != permission.Deny {
			rt.Fatalf("deny became %v with the sandbox: %+v", on.Behavior, on.Reason)
		}
		if off.Behavior == permission.Ask && off.Reason != nil && off.Reason.Type == permission.ReasonSafetyCheck && on.Behavior == permission.Allow {
			rt.Fatalf("a safety-check ask was allowed with the sandbox: %+v", on.Reason)
		}
		if on.Reason != nil && on.Reason.Detail == permission.SandboxAutoAllowDetail {
			pc, _ := permission.New(permission.Config{Cwd: dir, Home: dir, Sandbox: policy})
			if !policy.AutoAllowBash || !wouldSandbox(pc, in.(Input)) {
				rt.Fatalf("auto-allowed a call that does not run sandboxed (policy %+v, input %s)", policy, raw)
			}
		}
	})
}
