package agenttool

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/reinsdev/reins/agentdef"
	"github.com/reinsdev/reins/tool"
)

// TestDefinitionMaxTurnsStopsTheSubAgent: a definition's maxTurns bounds its sub-agent's
// replies; the tighter of it and the session's limit holds.
func TestDefinitionMaxTurnsStopsTheSubAgent(t *testing.T) {
	short := &agentdef.Definition{Name: "short", Description: "d", Prompt: "SHORT", MaxTurns: 1}
	h := newHarness(t, harnessOpts{defs: []*agentdef.Definition{short}})
	h.router.script(parentKey, use("Agent", `{"description":"d","prompt":"p","subagent_type":"short"}`), say("ok"))
	h.router.script("SHORT", use("Glob", `{"pattern":"*.go"}`), use("Glob", `{"pattern":"*"}`), say("never"))
	h.run(t.Context(), "go")

	if n := len(h.router.requests("SHORT")); n != 1 {
		t.Errorf("the sub-agent made %d requests, want 1", n)
	}
	res := lastResults(h.router.requests(parentKey)[1])[0]
	if !res.IsError || !strings.Contains(textOf(res), "Agent short stopped after 1 turns") {
		t.Errorf("Agent result %q", textOf(res))
	}
}

func TestMaxTurnsTakesTheTighter(t *testing.T) {
	for _, c := range []struct{ session, def, want int }{{0, 0, 0}, {0, 3, 3}, {5, 0, 5}, {5, 3, 3}, {2, 3, 2}} {
		if got := maxTurns(c.session, c.def); got != c.want {
			t.Errorf("maxTurns(%d, %d) = %d, want %d", c.session, c.def, got, c.want)
		}
	}
}

// TestBackgroundDefinitionRunsInTheBackground: a definition with background set runs as
// run_in_background does, whatever the call says, so no ask reaches the person.
func TestBackgroundDefinitionRunsInTheBackground(t *testing.T) {
	asker := &grantingAsker{}
	bg := &agentdef.Definition{Name: "bg", Description: "d", Prompt: "BG", Background: true}
	h := newHarness(t, harnessOpts{asker: asker, defs: []*agentdef.Definition{bg}})
	h.router.script(parentKey, use("Agent", `{"description":"d","prompt":"p","subagent_type":"bg"}`), say("ok"))
	h.router.script("BG", use("Bash", `{"command":"touch x"}`), say("denied"))
	h.run(t.Context(), "go")
	if err := h.manager.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := textOf(lastResults(h.router.requests(parentKey)[1])[0]); !strings.Contains(got, "Async agent launched successfully") {
		t.Errorf("launch result %q", got)
	}
	res := lastResults(h.router.requests("BG")[1])[0]
	if !res.IsError || !strings.Contains(textOf(res), "Permission to use Bash has been denied") {
		t.Errorf("background ask answered %q", textOf(res))
	}
	if len(asker.asked) != 0 {
		t.Errorf("a background agent reached the person: %v", asker.asked)
	}
}

// TestBackgroundDefinitionWithoutManagerIsRefused: where nothing runs in the background, such
// an agent is refused rather than run in the foreground, where its asks would reach a person.
func TestBackgroundDefinitionWithoutManagerIsRefused(t *testing.T) {
	bg := &agentdef.Definition{Name: "bg", Description: "d", Prompt: "BG", Background: true}
	a := &agentTool{cfg: Config{Definitions: agentdef.Load(nil, bg)}}
	f := a.validate(t.Context(), Input{Prompt: "p", SubagentType: "bg"}, nil)
	if f == nil || !strings.Contains(f.Message, "always runs in the background, which is not available here") {
		t.Errorf("validate = %v", f)
	}
}

// builtinNamed is a tool that is not an MCP server's own, like the resource tools.
type builtinNamed struct{ tool.Tool }

func (b builtinNamed) Spec() tool.Spec {
	s := b.Tool.Spec()
	s.MCP = false
	return s
}

// fakeMCP is a server's tool that says which server it is from.
type fakeMCP struct {
	tool.Tool
	server string
}

func (f fakeMCP) MCPServer() string { return f.server }

func mcpTool(t *testing.T, name string) tool.Tool {
	t.Helper()
	tl, err := tool.New(tool.Def[map[string]any]{Name: name, Description: "d", MCP: true,
		Call: func(context.Context, map[string]any, *tool.Env) (tool.Result, error) { return tool.Result{}, nil }})
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

// TestDefinitionMCPServersSelectsThoseServersTools: a definition that names servers gets
// exactly their tools; a tool that cannot say its server is left out, however it is named.
func TestDefinitionMCPServersSelectsThoseServersTools(t *testing.T) {
	resources := mcpTool(t, "ReadMcpResourceTool")
	pool := []tool.Tool{
		agentStub{},
		builtinNamed{resources},
		fakeMCP{mcpTool(t, "mcp__a__x"), "a"},
		fakeMCP{mcpTool(t, "mcp__a__b__y"), "a__b"},
		fakeMCP{mcpTool(t, "mcp__docs__z"), "docs"},
		mcpTool(t, "mcp__a__anonymous"),
	}
	for _, c := range []struct {
		servers []string
		want    []string
	}{
		{nil, []string{"mcp__a__x", "mcp__a__b__y", "mcp__docs__z", "mcp__a__anonymous"}},
		{[]string{}, nil},
		{[]string{"a"}, []string{"mcp__a__x"}},
		{[]string{"a__b", "docs"}, []string{"mcp__a__b__y", "mcp__docs__z"}},
		{[]string{"gone"}, nil},
	} {
		def := &agentdef.Definition{Name: "x", MCPServers: c.servers}
		var got []string
		resourcesKept := false
		for _, tl := range Select(pool, def, false) {
			if tl.Spec().MCP {
				got = append(got, tl.Name())
			}
			resourcesKept = resourcesKept || tl.Name() == "ReadMcpResourceTool"
		}
		if resourcesKept != (c.servers == nil) {
			t.Errorf("mcpServers %q: resource tool kept %v, want it only without a server list", c.servers, resourcesKept)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("mcpServers %q: MCP tools %v, want %v", c.servers, got, c.want)
		}
	}
}
