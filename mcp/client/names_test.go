package client

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
)

var apiToolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

var longToolName = strings.Repeat("very_long_tool_name_", 15) + "end.of.it" // 309 characters

// TestToolNamesFitTheAPIAndNeverShadow: a 309-character tool name, two tools of one server
// whose names differ only in a character the API does not take, and server "a"'s tool "b__c"
// beside server "a__b"'s tool "c" each get a name of at most 64 characters ending in a hash
// of their own names, with a note naming the other; every other tool keeps
// mcp__<server>__<tool>. Before, the long name went to the API as it was and the colliding
// tools shadowed each other in the pool.
func TestToolNamesFitTheAPIAndNeverShadow(t *testing.T) {
	m := start(t, Options{}, testEntry("a", "names"), testEntry("a__b", "names"))
	ts := m.Tools()
	got := names(ts)
	seen := map[string]bool{}
	for _, n := range got {
		if !apiToolName.MatchString(n) {
			t.Errorf("%q is not a name the API takes", n)
		}
		if seen[n] {
			t.Errorf("%q twice in the pool", n)
		}
		seen[n] = true
	}
	if len(got) != 12 {
		t.Errorf("pool = %v, want the six tools of both servers", got)
	}
	for _, n := range []string{"mcp__a__short", "mcp__a__c", "mcp__a__b__short", "mcp__a__b__b__c"} {
		if !seen[n] {
			t.Errorf("%s lost its plain name; pool = %v", n, got)
		}
	}
	if seen["mcp__a__b__c"] || seen["mcp__a__get_x"] {
		t.Errorf("a colliding plain name is still in the pool: %v", got)
	}
	// Every tool reaches its own server's tool.
	for _, x := range ts {
		mt := x.(*mcpTool)
		if res := run(t, x, `{}`); res.TextOf() != "ran "+mt.def.Name {
			t.Errorf("%s ran %q, want %s's %s", x.Name(), res.TextOf(), mt.srv.name, mt.def.Name)
		}
	}
	st := m.Status()
	renamed := strings.Join(st[0].Renamed, "\n")
	for _, w := range []string{"get.x is named mcp__a__get_x_", `since mcp__a__get_x would also name server a, tool "get_x"`,
		"b__c is named mcp__a__b__c_", `server a__b, tool "c"`, "is longer than the API's 64 characters"} {
		if !strings.Contains(renamed, w) {
			t.Errorf("renamed = %s\nwant %q", renamed, w)
		}
	}
	if st[0].Tools != 6 || len(st[0].Skipped) != 0 {
		t.Errorf("status = %+v", st[0])
	}
	var defs []string
	for _, d := range m.Definitions("a") {
		defs = append(defs, d.Name)
	}
	if !slices.Contains(defs, "mcp__a__short") || slices.Contains(defs, "mcp__a__get_x") {
		t.Errorf("definitions = %v, want the pool names", defs)
	}
}

// TestRulesForARenamedToolsPlainName: a deny or ask rule written for mcp__<server>__<tool>
// still applies when the tool had to be renamed; an allow rule for it does not (that name may
// now be another tool's), so the call asks.
func TestRulesForARenamedToolsPlainName(t *testing.T) {
	m := start(t, Options{}, testEntry("a", "names"))
	var long tool.Tool
	for _, x := range m.Tools() {
		if x.(*mcpTool).def.Name == longToolName {
			long = x
		}
	}
	if long == nil {
		t.Fatalf("no tool for the long name in %v", names(m.Tools()))
	}
	plain := ToolName("a", longToolName)
	for _, c := range []struct {
		behavior permission.Behavior
		mode     permission.Mode
		want     permission.Behavior
	}{
		{permission.Deny, permission.ModeBypass, permission.Deny},
		{permission.Ask, permission.ModeBypass, permission.Ask},
		{permission.Allow, permission.ModeDefault, permission.Ask},
	} {
		t.Run(fmt.Sprintf("%s rule, %s mode", c.behavior, c.mode), func(t *testing.T) {
			dir := t.TempDir()
			pc, err := permission.New(permission.Config{Mode: c.mode, BypassAvailable: true, Cwd: dir, Home: dir,
				Rules: []permission.Rule{{Value: permission.ParseRule(plain), Behavior: c.behavior, Source: permission.SourceUser}}})
			if err != nil {
				t.Fatal(err)
			}
			var e permission.Engine
			d, err := e.Decide(t.Context(), pc, long, map[string]any{})
			if err != nil {
				t.Fatal(err)
			}
			if d.Behavior != c.want {
				t.Errorf("decision = %s (%s), want %s", d.Behavior, d.Message, c.want)
			}
		})
	}
}

// TestAssignNamesProperties: whatever the servers and tools, every offered name is one the
// API takes, no two are equal, the names do not depend on the order the servers are listed
// in, and a plain name that is short enough and unique is kept.
func TestAssignNamesProperties(t *testing.T) {
	part := rapid.StringMatching(`[a-z._]{1,3}(__)?[a-z.]{0,3}|[a-z]{40,80}`)
	rapid.Check(t, func(rt *rapid.T) {
		servers := rapid.SliceOfNDistinct(rapid.StringMatching(`[a-z_]{1,3}(__[a-z]{1,2})?|[a-z]{30,60}`), 1, 4, rapid.ID).Draw(rt, "servers")
		defs := map[*server][]string{}
		var order []*server
		for _, name := range servers {
			s := &server{name: name}
			order = append(order, s)
			defs[s] = rapid.SliceOfNDistinct(part, 0, 6, rapid.ID).Draw(rt, "tools of "+name)
		}
		got := assignNames(defs)
		count := map[string]int{}
		for s, tools := range defs {
			for _, t := range tools {
				count[ToolName(s.name, t)]++
			}
		}
		offered := map[string]bool{}
		for s, tools := range defs {
			for _, t := range tools {
				p := got[s][t]
				if p.refused != "" {
					continue
				}
				if !apiToolName.MatchString(p.name) {
					rt.Fatalf("%s/%s: %q is not an API name", s.name, t, p.name)
				}
				if offered[p.name] {
					rt.Fatalf("%q offered twice", p.name)
				}
				offered[p.name] = true
				if plain := ToolName(s.name, t); len(plain) <= MaxToolNameLen && count[plain] == 1 && p.name != plain {
					rt.Fatalf("%s/%s: renamed %q to %q without cause", s.name, t, plain, p.name)
				}
			}
		}
		// The same servers listed the other way round get the same names.
		rev := map[*server][]string{}
		for _, s := range slices.Backward(order) {
			rev[s] = slices.Clone(defs[s])
			slices.Reverse(rev[s])
		}
		again := assignNames(rev)
		for s := range defs {
			if !maps.Equal(got[s], again[s]) {
				rt.Fatalf("names depend on the order: %v vs %v", got[s], again[s])
			}
		}
	})
}

// TestServerRulesForAServerNamedWithDoubleUnderscores: rule names split at the first "__", so
// the engine reads a deny of mcp__a__b as server a's tool b; server a__b's own check applies
// it (and an ask) to its tools, in bypass too, and an allow still asks.
func TestServerRulesForAServerNamedWithDoubleUnderscores(t *testing.T) {
	m := start(t, Options{}, testEntry("a__b", "names"))
	short := find(t, m.Tools(), "mcp__a__b__short")
	for _, c := range []struct {
		behavior permission.Behavior
		mode     permission.Mode
		want     permission.Behavior
	}{
		{permission.Deny, permission.ModeBypass, permission.Deny},
		{permission.Ask, permission.ModeBypass, permission.Ask},
		{permission.Allow, permission.ModeDefault, permission.Ask},
	} {
		t.Run(fmt.Sprintf("%s rule, %s mode", c.behavior, c.mode), func(t *testing.T) {
			dir := t.TempDir()
			pc, err := permission.New(permission.Config{Mode: c.mode, BypassAvailable: true, Cwd: dir, Home: dir,
				Rules: []permission.Rule{{Value: permission.ParseRule("mcp__a__b"), Behavior: c.behavior, Source: permission.SourceUser}}})
			if err != nil {
				t.Fatal(err)
			}
			var e permission.Engine
			d, err := e.Decide(t.Context(), pc, short, map[string]any{})
			if err != nil {
				t.Fatal(err)
			}
			if d.Behavior != c.want {
				t.Errorf("decision = %s (%s), want %s", d.Behavior, d.Message, c.want)
			}
		})
	}
}
