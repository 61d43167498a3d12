package agenttool

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/agentdef"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/tools"
	"github.com/reinsdev/reins/tools/bash"
)

// The attenuation property: a sub-agent never gets more than its parent. For random rule
// sets, parent modes, agent definitions and tool calls:
//
//   - a sub-agent's pool is a subset of its parent's;
//   - any call the sub-agent is allowed to make, the parent in the same state would also be
//     allowed to make, or would ask for — never deny;
//
// and the same one level further down, for definitions that ask for nesting.
func TestSubAgentNeverGetsMoreThanItsParent(t *testing.T) {
	dir := t.TempDir()
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		dir = d
	}
	home := t.TempDir()
	sh := bash.New(bash.Options{Cwd: dir})
	t.Cleanup(func() { sh.Close() })
	base := tools.Base(tools.Options{Shell: sh, NoRipgrep: true})

	ruleTexts := []string{
		"Bash", "Bash(rm:*)", "Bash(git push:*)", "Bash(npm test)", "Bash(curl:*)", "Bash(echo:*)",
		"Read", "Read(./secret/**)", "Read(~/.ssh/**)", "Edit", "Edit(./src/**)", "Edit(/etc/**)", "Write",
		"WebFetch", "WebFetch(domain:example.com)", "Agent(Explore)", "Agent", "Glob", "Grep", "TodoWrite",
	}
	calls := []struct{ tool, input string }{
		{"Bash", `{"command":"rm -rf build"}`},
		{"Bash", `{"command":"git push origin main"}`},
		{"Bash", `{"command":"npm test"}`},
		{"Bash", `{"command":"echo hi > out.txt"}`},
		{"Bash", `{"command":"ls"}`},
		{"Bash", `{"command":"curl -O http://x/.bashrc"}`},
		{"Read", `{"file_path":"` + dir + `/secret/key"}`},
		{"Read", `{"file_path":"` + dir + `/main.go"}`},
		{"Read", `{"file_path":"` + home + `/.ssh/id_rsa"}`},
		{"Edit", `{"file_path":"` + dir + `/src/a.go","old_string":"a","new_string":"b"}`},
		{"Edit", `{"file_path":"` + dir + `/.git/config","old_string":"a","new_string":"b"}`},
		{"Write", `{"file_path":"/etc/passwd","content":"x"}`},
		{"Write", `{"file_path":"` + dir + `/notes.md","content":"x"}`},
		{"WebFetch", `{"url":"https://example.com/a","prompt":"p"}`},
		{"WebFetch", `{"url":"https://evil.test/a","prompt":"p"}`},
		{"Glob", `{"pattern":"**/*.go"}`},
		{"Grep", `{"pattern":"x"}`},
		{"TodoWrite", `{"todos":[]}`},
	}
	modes := []permission.Mode{permission.ModeDefault, permission.ModeAcceptEdits, permission.ModePlan, permission.ModeBypass, permission.ModeDontAsk}
	defModes := []permission.Mode{"", permission.ModeDefault, permission.ModeAcceptEdits, permission.ModePlan, permission.ModeBypass, permission.ModeDontAsk, permission.ModeAuto}
	names := []string{"Bash", "Read", "Edit", "Write", "Glob", "Grep", "WebFetch", "TodoWrite", "Agent", "NotebookEdit", "TaskOutput", "*"}

	engine := &permission.Engine{}
	rapid.Check(t, func(rt *rapid.T) {
		var rules []permission.Rule
		for _, txt := range rapid.SliceOfN(rapid.SampledFrom(ruleTexts), 0, 8).Draw(rt, "rules") {
			b := rapid.SampledFrom([]permission.Behavior{permission.Allow, permission.Ask, permission.Deny}).Draw(rt, "behavior")
			rules = append(rules, permission.Rule{Value: permission.ParseRule(txt), Behavior: b, Source: permission.SourceLocal})
		}
		bypassOK := rapid.Bool().Draw(rt, "bypassAvailable")
		mode := rapid.SampledFrom(modes).Draw(rt, "mode")
		if mode == permission.ModeBypass && !bypassOK {
			mode = permission.ModeDefault
		}
		pc, err := permission.New(permission.Config{Mode: mode, Cwd: dir, Home: home, Rules: rules,
			BypassAvailable: bypassOK, AvoidPrompts: rapid.Bool().Draw(rt, "parentPromptless")})
		if err != nil {
			rt.Fatal(err)
		}
		parentPool := tools.Assemble(pc, append(slices.Clone(base), agentStub{}), nil, nil)

		drawDef := func(label string) *agentdef.Definition {
			d := &agentdef.Definition{Name: "x", Description: "d", Prompt: "p",
				PermissionMode:  rapid.SampledFrom(defModes).Draw(rt, label+"mode"),
				Tools:           rapid.SliceOfN(rapid.SampledFrom(names), 0, 4).Draw(rt, label+"tools"),
				DisallowedTools: rapid.SliceOfN(rapid.SampledFrom(names), 0, 3).Draw(rt, label+"disallowed")}
			if rapid.Bool().Draw(rt, label+"nest") {
				d.Tools = append(d.Tools, "Agent")
			}
			return d
		}
		view := func(def *agentdef.Definition, background bool) func(*permission.Context) *permission.Context {
			return func(p *permission.Context) *permission.Context {
				c := p.WithMode(ChildMode(p, def.PermissionMode))
				if background {
					c = c.WithAvoidPrompts(true)
				}
				return c
			}
		}
		parentPerms := agent.NewPermissions(pc, nil)
		def := drawDef("child")
		bg := rapid.Bool().Draw(rt, "background")
		childPerms := parentPerms.Derive(view(def, bg))
		childPool := Select(parentPool, def, bg)
		if def.AllowsNesting() && !bg && hasTool(parentPool, Name) {
			childPool = append(childPool, agentStub{})
		}
		assertSubset(rt, childPool, parentPool)

		levels := []struct {
			perms *agent.Permissions
			pool  []tool.Tool
		}{{parentPerms, parentPool}, {childPerms, childPool}}
		if hasTool(childPool, Name) {
			gdef := drawDef("grandchild")
			gPool := Select(childPool, gdef, false)
			assertSubset(rt, gPool, childPool)
			levels = append(levels, struct {
				perms *agent.Permissions
				pool  []tool.Tool
			}{childPerms.Derive(view(gdef, false)), gPool})
		}

		call := rapid.SampledFrom(calls).Draw(rt, "call")
		for i := 1; i < len(levels); i++ {
			up, down := levels[i-1], levels[i]
			t := findTool(down.pool, call.tool)
			if t == nil {
				continue
			}
			input, err := t.Decode(json.RawMessage(call.input))
			if err != nil {
				rt.Fatalf("decode %s: %v", call.input, err)
			}
			dd, err := engine.Decide(t2ctx(), down.perms.Context(), t, input)
			if err != nil || dd.Behavior != permission.Allow {
				continue
			}
			ud, err := engine.Decide(t2ctx(), up.perms.Context(), t, input)
			if err != nil {
				rt.Fatal(err)
			}
			if ud.Behavior == permission.Deny {
				rt.Fatalf("level %d allows %s %s (mode %s) where level %d (mode %s) denies: %s",
					i, call.tool, call.input, down.perms.Context().Mode(), i-1, up.perms.Context().Mode(), ud.Message)
			}
		}
	})
}

func assertSubset(rt *rapid.T, sub, super []tool.Tool) {
	for _, t := range sub {
		if !hasTool(super, t.Name()) {
			rt.Fatalf("sub-agent pool has %s, its parent's does not", t.Name())
		}
	}
}

func findTool(ts []tool.Tool, name string) tool.Tool {
	for _, t := range ts {
		if t.Name() == name {
			return t
		}
	}
	return nil
}
