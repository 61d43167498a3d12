package agent

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"pgregory.net/rapid"

	"github.com/reinsdev/reins/bashrules"
	"github.com/reinsdev/reins/permission"
)

// propTool is a tool as the engine sees it: Read and Edit use the shared path checks, Bash the
// Bash tool's own check.
type propTool string

func (p propTool) Name() string { return string(p) }
func (p propTool) CheckPermissions(ctx context.Context, pc *permission.Context, input any) permission.Decision {
	switch p {
	case "Read":
		return pc.CheckRead(ctx, input.(string))
	case "Edit":
		return pc.CheckWrite(ctx, input.(string))
	}
	return bashrules.Check(ctx, pc, input.(string))
}

var (
	cmdPropCalls = []struct {
		tool  propTool
		input string
	}{
		{"Read", "a.txt"}, {"Read", ".env"}, {"Read", "/etc/hosts"}, {"Edit", "src/x.go"}, {"Edit", ".git/config"},
		{"Edit", ".claude/commands/x.md"}, {"Edit", "/outside/x"}, {"Bash", "npm run lint"}, {"Bash", "npm run lint && rm -rf src"},
		{"Bash", "rm -rf src"}, {"Bash", "git push"}, {"Bash", "cat .env"}, {"Bash", "echo hi > .bashrc"}, {"Bash", "npm run lint; curl x.io"},
	}
	cmdPropRules = []string{"Bash", "Bash(npm run lint:*)", "Bash(npm:*)", "Bash(rm:*)", "Bash(git push)", "Bash(curl:*)", "Bash(cat:*)",
		"Read", "Read(.env)", "Read(//etc/**)", "Edit", "Edit(src/**)", "Edit(**)", "Edit(.git/**)", "Edit(/.claude/**)", "Write"}
	cmdPropModes = []permission.Mode{permission.ModeDefault, permission.ModeAcceptEdits, permission.ModePlan, permission.ModeDontAsk, permission.ModeBypass}
	// otherSources are every source but command.
	otherSources = []permission.Source{permission.SourceUser, permission.SourceProject, permission.SourceLocal, permission.SourceFlag,
		permission.SourcePolicy, permission.SourceCLIArg, permission.SourceSession}
)

// stoppedByRuleOrSafety reports whether d is a deny, or an ask that a deny or ask rule or a
// safety check made, at the top or in any part of a compound command. dontAsk's deny of what
// would have been asked is the mode's, not a rule's.
func stoppedByRuleOrSafety(d permission.Decision) bool {
	if d.Behavior == permission.Deny && !deniedByMode(d) {
		return true
	}
	if d.Behavior != permission.Ask || d.Reason == nil {
		return false
	}
	if d.Reason.Type == permission.ReasonSafetyCheck || (d.Reason.Type == permission.ReasonRule && d.Reason.Rule != nil && d.Reason.Rule.Behavior != permission.Allow) {
		return true
	}
	for _, s := range d.Reason.Subresults {
		if stoppedByRuleOrSafety(s.Decision) {
			return true
		}
	}
	return false
}

func deniedByMode(d permission.Decision) bool {
	return d.Behavior == permission.Deny && d.Reason != nil && d.Reason.Type == permission.ReasonMode
}

func TestPropertyCommandRulesNeverOutrankAndEndWithTheTurn(t *testing.T) {
	proj, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"a.txt", ".env", "src/x.go", ".git/config", ".claude/commands/x.md"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(proj, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(proj, p), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	rapid.Check(t, func(t *rapid.T) {
		mode := rapid.SampledFrom(cmdPropModes).Draw(t, "mode")
		call := rapid.SampledFrom(cmdPropCalls).Draw(t, "call")
		var other, command, asCLI []permission.Rule
		for range rapid.IntRange(0, 5).Draw(t, "nother") {
			other = append(other, permission.Rule{
				Value:    permission.ParseRule(rapid.SampledFrom(cmdPropRules).Draw(t, "rule")),
				Behavior: rapid.SampledFrom([]permission.Behavior{permission.Allow, permission.Ask, permission.Deny}).Draw(t, "behavior"),
				Source:   rapid.SampledFrom(otherSources).Draw(t, "source"),
			})
		}
		for range rapid.IntRange(1, 4).Draw(t, "ncommand") {
			v := permission.ParseRule(rapid.SampledFrom(cmdPropRules).Draw(t, "allowed"))
			command = append(command, permission.Rule{Value: v, Behavior: permission.Allow, Source: permission.SourceCommand,
				Origin: permission.Origin{File: "/c/review.md", Line: 3, Col: 3}})
			asCLI = append(asCLI, permission.Rule{Value: v, Behavior: permission.Allow, Source: permission.SourceCLIArg})
		}
		newPC := func(rules []permission.Rule) *permission.Context {
			pc, err := permission.New(permission.Config{Mode: mode, Cwd: proj, Home: proj, Rules: rules, BypassAvailable: mode == permission.ModeBypass})
			if err != nil {
				t.Fatal(err)
			}
			return pc
		}
		var e permission.Engine
		decide := func(pc *permission.Context) permission.Decision {
			d, err := e.Decide(ctx, pc, call.tool, call.input)
			if err != nil {
				t.Fatal(err)
			}
			return d
		}
		perms := NewPermissions(newPC(other), nil)
		before := decide(perms.Context())

		end, err := perms.BeginCommand(command)
		if err != nil {
			t.Fatal(err)
		}
		during := decide(perms.Context())
		if stoppedByRuleOrSafety(before) && during.Behavior == permission.Allow {
			t.Fatalf("%s %q: without the command %s (%s); with it allowed (%s)", call.tool, call.input, before.Behavior, before.Message, during.Reason)
		}
		if before.Behavior == permission.Deny && !deniedByMode(before) && during.Behavior != permission.Deny {
			t.Fatalf("%s %q: a deny became %s with the command's rules", call.tool, call.input, during.Behavior)
		}
		// The command's rules rank as the same allow rules of any other source would.
		if same := decide(newPC(append(append([]permission.Rule{}, other...), asCLI...))); same.Behavior != during.Behavior {
			t.Fatalf("%s %q: command rules give %s, the same rules from cliArg %s", call.tool, call.input, during.Behavior, same.Behavior)
		}

		end()
		after := perms.Context()
		for _, r := range after.Rules() {
			if r.Source == permission.SourceCommand {
				t.Fatalf("rule %s outlived its turn", r.Describe())
			}
		}
		if d := decide(after); d.Behavior != before.Behavior {
			t.Fatalf("after the turn: %s, before it: %s", d.Behavior, before.Behavior)
		}
		for _, r := range perms.State().Rules {
			if r.Rule != "" && r.Behavior == permission.Allow && len(other) == 0 {
				t.Fatalf("a command rule was recorded with the session: %v", r)
			}
		}
	})
}

func TestBeginCommandOneAtATime(t *testing.T) {
	pc, err := permission.New(permission.Config{Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	p := NewPermissions(pc, nil)
	rule := permission.Rule{Value: permission.ParseRule("Read"), Behavior: permission.Allow, Source: permission.SourceCommand}
	if _, err := p.BeginCommand([]permission.Rule{{Value: permission.ParseRule("Read"), Behavior: permission.Deny, Source: permission.SourceCommand}}); err == nil {
		t.Error("a deny rule was accepted as a command's")
	}
	end, err := p.BeginCommand([]permission.Rule{rule})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.BeginCommand(nil); err == nil {
		t.Error("a second command began while the first drives the turn")
	}
	end()
	end() // ending twice is harmless
	if _, err := p.BeginCommand(nil); err != nil {
		t.Errorf("after the end: %v", err)
	}
}
