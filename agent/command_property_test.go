package agent

import (
	"context"
	"os"
	"path/filepath"
	"slices"
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
		var other, command, skill, asCLI, commandAsCLI []permission.Rule
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
		commandAsCLI = slices.Clone(asCLI)
		// A skill loaded in the command's turn brings its own set; the turn holds the union.
		for range rapid.IntRange(0, 3).Draw(t, "nskill") {
			v := permission.ParseRule(rapid.SampledFrom(cmdPropRules).Draw(t, "skillAllowed"))
			skill = append(skill, permission.Rule{Value: v, Behavior: permission.Allow, Source: permission.SourceCommand,
				Origin: permission.Origin{File: "/s/lint/SKILL.md", Line: 4, Col: 16}})
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
		if err := perms.AddTurnRules(skill); err != nil {
			t.Fatal(err)
		}
		// A sub-agent's skill rules are its own: the parent's decision does not change.
		child := perms.Derive(func(pc *permission.Context) *permission.Context { return pc })
		if err := child.AddTurnRules(command); err != nil {
			t.Fatal(err)
		}
		during := decide(perms.Context())
		if inChild := decide(child.Context()); stoppedByRuleOrSafety(before) && inChild.Behavior == permission.Allow {
			t.Fatalf("%s %q: a sub-agent's skill rules allowed what a rule or safety check stops", call.tool, call.input)
		}
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

		// The turn ends: the skill's rules go, the slash command's stay until its end.
		perms.EndTurn()
		if got, want := decide(perms.Context()), decide(newPC(append(slices.Clone(other), commandAsCLI...))); got.Behavior != want.Behavior {
			t.Fatalf("%s %q: after the turn's end the command's rules alone give %s, the same from cliArg %s", call.tool, call.input, got.Behavior, want.Behavior)
		}
		child.EndTurn()
		end()
		if d := decide(child.Context()); d.Behavior != before.Behavior {
			t.Fatalf("%s %q: the sub-agent after its turn: %s, before: %s", call.tool, call.input, d.Behavior, before.Behavior)
		}
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

// TestCommandLayersAreAUnion: a second set of command rules in a turn (a skill loaded in a
// slash command's turn) joins the first; each ends on its own, the skill's at the turn's end.
func TestCommandLayersAreAUnion(t *testing.T) {
	pc, err := permission.New(permission.Config{Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	p := NewPermissions(pc, nil)
	rule := func(v string) permission.Rule {
		return permission.Rule{Value: permission.ParseRule(v), Behavior: permission.Allow, Source: permission.SourceCommand}
	}
	has := func() (out []string) {
		for _, r := range p.Context().Rules() {
			if r.Source == permission.SourceCommand {
				out = append(out, r.Value.String())
			}
		}
		return out
	}
	if _, err := p.BeginCommand([]permission.Rule{{Value: permission.ParseRule("Read"), Behavior: permission.Deny, Source: permission.SourceCommand}}); err == nil {
		t.Error("a deny rule was accepted as a command's")
	}
	if err := p.AddTurnRules([]permission.Rule{{Value: permission.ParseRule("Read"), Behavior: permission.Allow, Source: permission.SourceSession}}); err == nil {
		t.Error("a session rule was accepted as a skill's")
	}
	end, err := p.BeginCommand([]permission.Rule{rule("Read")})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.AddTurnRules([]permission.Rule{rule("Bash(npm run lint:*)")}); err != nil {
		t.Fatal(err)
	}
	if got := has(); !slices.Equal(got, []string{"Read", "Bash(npm run lint:*)"}) {
		t.Errorf("during the turn: %v, want both sets", got)
	}
	p.EndTurn()
	if got := has(); !slices.Equal(got, []string{"Read"}) {
		t.Errorf("after EndTurn: %v, want the command's only", got)
	}
	end()
	end() // ending twice is harmless
	if got := has(); len(got) != 0 {
		t.Errorf("after the end: %v", got)
	}
	if _, err := p.Derive(func(c *permission.Context) *permission.Context { return c }).BeginCommand(nil); err == nil {
		t.Error("a sub-agent began a slash command")
	}
}

// TestSubAgentTurnRulesAreItsOwn: a sub-agent's skill rules hold in its own view only and end
// with its turn; it sees its parent's command rules beside them.
func TestSubAgentTurnRulesAreItsOwn(t *testing.T) {
	pc, err := permission.New(permission.Config{Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	parent := NewPermissions(pc, nil)
	rule := func(v string) permission.Rule {
		return permission.Rule{Value: permission.ParseRule(v), Behavior: permission.Allow, Source: permission.SourceCommand}
	}
	end, err := parent.BeginCommand([]permission.Rule{rule("Read")})
	if err != nil {
		t.Fatal(err)
	}
	defer end()
	child := parent.Derive(func(c *permission.Context) *permission.Context { return c })
	if err := child.AddTurnRules([]permission.Rule{rule("Bash(make:*)")}); err != nil {
		t.Fatal(err)
	}
	count := func(p *Permissions) int {
		n := 0
		for _, r := range p.Context().Rules() {
			if r.Source == permission.SourceCommand {
				n++
			}
		}
		return n
	}
	if count(child) != 2 || count(parent) != 1 {
		t.Errorf("child sees %d command rules (want 2), parent %d (want 1)", count(child), count(parent))
	}
	child.EndTurn()
	if count(child) != 1 {
		t.Errorf("after the sub-agent's turn it still has %d command rules, want its parent's 1", count(child))
	}
}
