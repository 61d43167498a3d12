package app

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/reinsdev/reins/agentdef"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/skills"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/tools"
)

func names(ts []tool.Tool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name())
	}
	return out
}

// newContext is a context in a fresh folder with deny rules from the command line.
func newContext(t *testing.T, deny ...string) *permission.Context {
	t.Helper()
	pc, err := permission.New(permission.Config{Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(deny) == 0 {
		return pc
	}
	var values []permission.RuleValue
	for _, d := range deny {
		values = append(values, permission.ParseRule(d))
	}
	pc, err = pc.Apply(permission.Update{Type: permission.AddRules, Destination: permission.SourceSession, Behavior: permission.Deny, Rules: values})
	if err != nil {
		t.Fatal(err)
	}
	return pc
}

// TestCatalogHasTheAgentTool checks that the catalog is a session's pool: the built-ins and
// the Agent tool, in the pool's order, and that a tool-wide deny takes Agent out of the pool
// but not out of All, so a decision about it can still be explained.
func TestCatalogHasTheAgentTool(t *testing.T) {
	getenv := func(string) string { return "" }
	defs := agentdef.Load(agentdef.Dirs("", "", ""))

	pc := newContext(t)
	pool, all := Catalog(pc, defs, nil, getenv)
	defer pool.Close()
	if !slices.Contains(names(pool.Tools), "Agent") || !slices.Contains(names(all), "Agent") {
		t.Fatalf("pool %v, all %v: no Agent", names(pool.Tools), names(all))
	}
	if got, want := names(pool.Tools), names(tools.Assemble(pc, all, nil, getenv)); !slices.Equal(got, want) {
		t.Errorf("pool %v, want the assembled catalog %v", got, want)
	}
	agentTool, _ := tools.Find(all, "Task")
	if agentTool == nil || agentTool.Name() != "Agent" {
		t.Errorf("the legacy name Task does not find Agent")
	}
	in, err := agentTool.Decode(json.RawMessage(`{"description":"d","prompt":"p"}`))
	if err != nil {
		t.Fatal(err)
	}
	var engine permission.Engine
	if d, err := engine.Decide(context.Background(), pc, agentTool, in); err != nil || d.Behavior != permission.Allow {
		t.Errorf("deciding an Agent call: %v %v", d.Behavior, err)
	}

	denied := newContext(t, "Agent")
	pool2, all2 := Catalog(denied, defs, nil, getenv)
	defer pool2.Close()
	if slices.Contains(names(pool2.Tools), "Agent") || !slices.Contains(names(all2), "Agent") {
		t.Errorf("with Agent denied: pool %v, all %v", names(pool2.Tools), names(all2))
	}
}

// TestCatalogHasTheSkillTool: with skills the model may load, the catalog has the Skill tool,
// and a call naming one is decided as a session decides it (a Skill(name) deny denies).
func TestCatalogHasTheSkillTool(t *testing.T) {
	getenv := func(string) string { return "" }
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"lint/SKILL.md": "---\ndescription: Lint\n---\nRun the linter.\n"})
	set := skills.Load(context.Background(), []skills.Root{{Path: root, Source: skills.SourceUser}}, false)

	pool, all := Catalog(newContext(t), nil, nil, getenv)
	pool.Close()
	if slices.Contains(names(all), "Skill") {
		t.Errorf("without skills the catalog has Skill: %v", names(all))
	}
	pc := newContext(t, "Skill(lint)")
	pool, all = Catalog(pc, nil, set, getenv)
	defer pool.Close()
	skill, _ := tools.Find(all, "Skill")
	if skill == nil {
		t.Fatalf("no Skill tool in %v", names(all))
	}
	in, err := skill.Decode(json.RawMessage(`{"skill":"lint"}`))
	if err != nil {
		t.Fatal(err)
	}
	var engine permission.Engine
	if d, err := engine.Decide(context.Background(), pc, skill, in); err != nil || d.Behavior != permission.Deny {
		t.Errorf("Skill(lint) denied: %v %v", d.Behavior, err)
	}
}
