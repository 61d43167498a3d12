package permission

import (
	"context"
	"strings"
	"testing"
)

func TestWithCommandRules(t *testing.T) {
	proj := t.TempDir()
	base, err := New(Config{Cwd: proj, Rules: []Rule{{Value: ParseRule("Bash(git push)"), Behavior: Deny, Source: SourceProject}}})
	if err != nil {
		t.Fatal(err)
	}
	cmd := Rule{Value: ParseRule("Read"), Behavior: Allow, Source: SourceCommand, Origin: Origin{File: "r.md", Line: 3, Col: 3}}
	for _, bad := range []Rule{
		{Value: ParseRule("Read"), Behavior: Deny, Source: SourceCommand},
		{Value: ParseRule("Read"), Behavior: Allow, Source: SourceSession},
	} {
		if _, err := base.WithCommandRules([]Rule{bad}); err == nil {
			t.Errorf("rule %s accepted", bad.Describe())
		}
	}
	with, err := base.WithCommandRules([]Rule{cmd})
	if err != nil {
		t.Fatal(err)
	}
	if r := with.ToolWideRule(Allow, "Read"); r == nil || r.Origin.String() != "r.md:3:3" {
		t.Errorf("the command's rule is not in the context with its origin: %v", r)
	}
	if base.ToolWideRule(Allow, "Read") != nil {
		t.Error("the receiver changed")
	}
	without, _ := with.WithCommandRules(nil)
	if without.ToolWideRule(Allow, "Read") != nil || len(without.Rules()) != 1 {
		t.Errorf("WithCommandRules(nil) kept %v", without.Rules())
	}
	auto, _ := New(Config{Cwd: proj, Mode: ModeAuto})
	got, _ := auto.WithCommandRules([]Rule{{Value: ParseRule("Bash(python:*)"), Behavior: Allow, Source: SourceCommand}})
	if len(got.SetAside(ruleTool("Bash"))) != 1 {
		t.Error("in auto mode a command's dangerous allow rule must be set aside as the settings' are")
	}
	d, _ := (&Engine{}).Decide(context.Background(), with, ruleTool("Read"), "x")
	if !strings.Contains(d.Reason.String(), "command") {
		t.Errorf("the trace does not name the command source: %s", d.Reason)
	}
}

type ruleTool string

func (r ruleTool) Name() string { return string(r) }
func (r ruleTool) CheckPermissions(context.Context, *Context, any) Decision {
	return Decision{Behavior: Passthrough}
}
