package permission

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestParseMode(t *testing.T) {
	for _, m := range []string{"default", "acceptEdits", "plan", "dontAsk", "bypassPermissions", "auto"} {
		if got, err := ParseMode(m); err != nil || string(got) != m {
			t.Errorf("ParseMode(%q) = %q, %v", m, got, err)
		}
	}
	for _, bad := range []string{"bubble", "Default", "yolo", ""} {
		_, err := ParseMode(bad)
		if err == nil || !strings.Contains(err.Error(), "acceptEdits, bypassPermissions, default, dontAsk, plan, auto") {
			t.Errorf("ParseMode(%q) error = %v, want one listing the valid modes", bad, err)
		}
	}
}

func TestNextMode(t *testing.T) {
	tests := []struct {
		from         Mode
		bypass, auto bool
		want         Mode
	}{
		{ModeDefault, false, false, ModeAcceptEdits},
		{ModeAcceptEdits, false, false, ModePlan},
		{ModePlan, false, false, ModeDefault},
		{ModePlan, true, false, ModeBypass},
		{ModePlan, false, true, ModeAuto},
		{ModePlan, true, true, ModeBypass},
		{ModeBypass, true, true, ModeAuto},
		{ModeBypass, true, false, ModeDefault},
		{ModeAuto, true, true, ModeDefault},
		{ModeDontAsk, true, true, ModeDefault},
		{ModeBubble, false, false, ModeDefault},
	}
	for _, tt := range tests {
		if got := NextMode(tt.from, tt.bypass, tt.auto); got != tt.want {
			t.Errorf("NextMode(%s, bypass=%v, auto=%v) = %s, want %s", tt.from, tt.bypass, tt.auto, got, tt.want)
		}
	}
}

func TestPlanTransitions(t *testing.T) {
	pc := mustNew(t, Config{Mode: ModeAcceptEdits})
	plan, err := pc.Transition(ModePlan)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Mode() != ModePlan || plan.PrePlanMode() != ModeAcceptEdits {
		t.Fatalf("entering plan: mode %s pre %s", plan.Mode(), plan.PrePlanMode())
	}
	again, _ := plan.Transition(ModePlan)
	if again.PrePlanMode() != ModeAcceptEdits {
		t.Fatalf("re-entering plan must keep prePlanMode, got %s", again.PrePlanMode())
	}
	back, err := plan.ExitPlan()
	if err != nil || back.Mode() != ModeAcceptEdits || back.PrePlanMode() != "" {
		t.Fatalf("exit plan: %s %s %v", back.Mode(), back.PrePlanMode(), err)
	}
	if pc.Mode() != ModeAcceptEdits || plan.Mode() != ModePlan {
		t.Fatal("transitions must not change the original contexts")
	}
	fresh := mustNew(t, Config{Mode: ModePlan})
	if out, _ := fresh.ExitPlan(); out.Mode() != ModeDefault {
		t.Fatalf("exit plan without prePlanMode = %s, want default", out.Mode())
	}
	if _, err := pc.Transition(ModeBypass); !errors.Is(err, ErrBypassUnavailable) {
		t.Fatalf("bypass without availability: %v", err)
	}
}

// TestAutoSetsAsideDangerousRules: while auto mode is active, Claude Code's dangerous allow
// rules of every source are out of the decisions (the session's too), and nothing is moved
// when the mode changes.
func TestAutoSetsAsideDangerousRules(t *testing.T) {
	rs := append(rules(Allow, SourceUser, "Bash(python:*)", "Bash(git status)", "Bash", "Agent"), rules(Allow, SourceSession, "Bash(node *)")...)
	pc := mustNew(t, Config{Rules: rs, AutoAvailable: true})
	auto, err := pc.Transition(ModeAuto)
	if err != nil {
		t.Fatal(err)
	}
	var aside []string
	for _, r := range auto.SetAside(ruleTool("Bash")) {
		aside = append(aside, r.Rule.Value.String())
	}
	if strings.Join(aside, ",") != "Bash(python:*),Bash,Bash(node *)" {
		t.Fatalf("set aside in auto: %v", aside)
	}
	if got := auto.SetAside(ruleTool("Agent")); len(got) != 1 || got[0].Rule.Value.Tool != "Agent" {
		t.Fatalf("Agent rules set aside: %v", got)
	}
	view := auto.withoutSetAside(context.Background(), ruleTool("Bash"))
	if view.ToolWideRule(Allow, "Bash") != nil || len(view.ContentRules(Allow, "Bash")) != 1 || view.ToolWideRule(Allow, "Agent") == nil {
		t.Fatalf("the Bash view keeps %v", view.Rules())
	}
	if len(auto.Rules()) != 5 {
		t.Fatalf("the context itself keeps every rule: %v", auto.Rules())
	}
}

func TestApply(t *testing.T) {
	pc := mustNew(t, Config{Rules: rules(Allow, SourcePolicy, "Read")})
	n, err := pc.Apply(Update{Type: AddRules, Destination: SourceSession, Behavior: Allow, Rules: []RuleValue{{Tool: "Bash", Content: "ls:*"}, {Tool: "Bash", Content: "ls:*"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(n.ContentRules(Allow, "Bash")) != 1 || len(pc.ContentRules(Allow, "Bash")) != 0 {
		t.Fatal("addRules must add once and leave the original alone")
	}
	n, _ = n.Apply(Update{Type: ReplaceRules, Destination: SourceSession, Behavior: Allow, Rules: []RuleValue{{Tool: "Glob"}}})
	if len(n.ContentRules(Allow, "Bash")) != 0 || n.ToolWideRule(Allow, "Glob") == nil {
		t.Fatal("replaceRules")
	}
	n, _ = n.Apply(Update{Type: RemoveRules, Destination: SourceSession, Behavior: Allow, Rules: []RuleValue{{Tool: "Glob"}}})
	if n.ToolWideRule(Allow, "Glob") != nil {
		t.Fatal("removeRules")
	}
	if _, err := n.Apply(Update{Type: RemoveRules, Destination: SourcePolicy, Behavior: Allow, Rules: []RuleValue{{Tool: "Read"}}}); !errors.Is(err, ErrReadOnlySource) {
		t.Fatalf("policy is read-only: %v", err)
	}
	dir := t.TempDir()
	n, _ = n.Apply(Update{Type: AddDirectories, Destination: SourceSession, Directories: []string{dir, dir}})
	if len(n.AdditionalDirs()) != 1 {
		t.Fatalf("addDirectories: %v", n.AdditionalDirs())
	}
	n, _ = n.Apply(Update{Type: RemoveDirectories, Destination: SourceSession, Directories: []string{dir}})
	if len(n.AdditionalDirs()) != 0 {
		t.Fatal("removeDirectories")
	}
	n, _ = n.Apply(Update{Type: SetMode, Destination: SourceSession, Mode: ModePlan})
	if n.Mode() != ModePlan || n.PrePlanMode() != ModeDefault {
		t.Fatalf("setMode plan: %s %s", n.Mode(), n.PrePlanMode())
	}
}
