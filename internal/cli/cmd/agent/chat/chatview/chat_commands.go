// Package chatview turns the session's state into what the chat shows: the lists of the
// slash commands (/agents, /skills, /mcp, /permissions), the trust dialog, /rewind's
// checkpoints, the status line, and standard error kept off the chat's terminal.
package chatview

import (
	"context"
	"fmt"

	"github.com/reinsdev/reins/agentdef"
	"github.com/reinsdev/reins/internal/app"
	"github.com/reinsdev/reins/internal/cli/cmdutil"
	"github.com/reinsdev/reins/internal/tui"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/settings"
	"github.com/reinsdev/reins/skills"
)

// IgnoredRules are the rules and directories of the settings that the session does not apply,
// and why: what the report says was not loaded (an untrusted project's lists, invalid rules,
// rules managed policy shuts out, missing directories), then the allow rules of the live
// context that a deny or ask rule always wins over (as `reins permissions list` finds them).
func IgnoredRules(rep *settings.Report, pc *permission.Context) []tui.IgnoredRule {
	var out []tui.IgnoredRule
	cmdutil.Unloaded(rep, func(where string, e settings.EntryReport) {
		ig := tui.IgnoredRule{List: e.List, Value: e.Value, Where: where, Why: string(e.Status), Reason: e.Reason, Count: e.Count}
		if e.Count > 0 {
			ig.Value = ""
		}
		out = append(out, ig)
	})
	rules := pc.Rules()
	for _, r := range rules {
		if o, ok := cmdutil.ShadowedBy(rules, r); ok {
			out = append(out, tui.IgnoredRule{List: "allow", Value: r.Value.String(), Where: whereRule(r), Why: tui.IgnoredShadowed,
				Reason: fmt.Sprintf("%s %s (%s) always wins", o.Behavior, o.Value, whereRule(o))})
		}
	}
	return out
}

// whereRule is a rule's file:line:col, or its source when it has no file (a flag, the session).
func whereRule(r permission.Rule) string {
	if s := r.Origin.String(); s != "" {
		return s
	}
	return r.Source.String()
}

// Agents are the agent types for /agents.
func Agents(set *agentdef.Set) []tui.AgentInfo {
	var out []tui.AgentInfo
	for _, d := range set.All() {
		out = append(out, tui.AgentInfo{Name: d.Name, Source: d.Source.String(), File: d.File, Description: d.Description})
	}
	return out
}

// Skills is the session's skills for /skills.
func Skills(set *skills.Set) []tui.SkillInfo {
	var out []tui.SkillInfo
	for _, s := range set.All() {
		si := tui.SkillInfo{Name: s.Name, Description: s.Description, Where: s.Where(), File: s.File}
		switch {
		case s.DisableModelInvocation:
			si.Note = "the model cannot load it (disable-model-invocation)"
		case len(s.Grants) > 0 && !s.Trusted:
			si.Note = "its allowed-tools wait for trust (reins trust)"
		}
		out = append(out, si)
	}
	return out
}

// MCP is the session's MCP servers for /mcp.
func MCP(m *app.MCP) []tui.MCPServerInfo {
	var out []tui.MCPServerInfo
	for _, st := range m.Status() {
		s := tui.MCPServerInfo{Name: st.Name, Scope: string(st.Scope), Type: st.Type, State: st.State, Reason: st.Reason, Skipped: st.Skipped}
		if m != nil {
			s.Tools = m.Manager.ServerTools(st.Name)
		}
		out = append(out, s)
	}
	return out
}

// Commands are the custom slash commands for the chat's completion and /help.
func Commands(a *app.App) []tui.CustomCommand {
	var out []tui.CustomCommand
	for _, c := range a.Ext.Commands.All() {
		_, ignored := app.CommandRules(a.Settings, c)
		out = append(out, tui.CustomCommand{Name: c.Name, Description: c.Description, ArgumentHint: c.ArgumentHint,
			Source: string(c.Source), Ignored: ignored})
	}
	return out
}

// RunCommand expands a custom command for the chat; end drops its rules when its turn ends.
func RunCommand(ctx context.Context, a *app.App, name, args string) (string, func(), error) {
	c, ok := a.Ext.Commands.Lookup(name)
	if !ok {
		return "", nil, fmt.Errorf("unknown command /%s (try /help)", name)
	}
	p, err := a.PrepareCommand(ctx, c, args)
	if err != nil {
		return "", nil, err
	}
	return p.Prompt, p.End, nil
}
