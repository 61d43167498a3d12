package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/reinsdev/reins/llm"
)

// AgentInfo is one agent type, as /agents lists it.
type AgentInfo struct {
	Name string
	// Source is builtin, user, project, flag or sdk; File is the definition's file, if any.
	Source, File string
	Description  string
}

// SkillInfo is one skill, as /skills lists it.
type SkillInfo struct {
	Name, Description string
	// Where is project, user or "plugin NAME"; File is its SKILL.md.
	Where, File string
	// Note says why the skill is listed but limited (model invocation disabled, allowed-tools
	// waiting for trust); empty when it is not.
	Note string
}

// MCPServerInfo is one configured MCP server, as /mcp shows it.
type MCPServerInfo struct {
	Name, Scope, Type string
	// State is connected, failed, restarting, or why the server was not started (needs
	// approval, disabled, …); Reason says more.
	State, Reason string
	// Tools are the pool names of its tools; Skipped, those left out and why.
	Tools, Skipped []string
}

// agentsReport is /agents: every agent type the Agent tool can start, with where it is defined.
func (m *Model) agentsReport() string {
	if m.cfg.Agents == nil {
		return "No agent types in this session."
	}
	var b strings.Builder
	b.WriteString("Agent types (the model starts them with the Agent tool; files in .claude/agents or ~/.claude/agents add more):")
	for _, a := range m.cfg.Agents() {
		where := a.Source
		if a.File != "" {
			where += ", " + displayPath(a.File, m.cfg.Cwd)
		}
		fmt.Fprintf(&b, "\n  %s (%s)", a.Name, where)
		if a.Description != "" {
			b.WriteString("\n    " + truncRunes(a.Description, max(m.width-8, 20)))
		}
	}
	return b.String()
}

// skillsReport is /skills: each skill with its description and where it comes from.
func (m *Model) skillsReport() string {
	var skills []SkillInfo
	if m.cfg.Skills != nil {
		skills = m.cfg.Skills()
	}
	if len(skills) == 0 {
		return "No skills (folders with a SKILL.md in .claude/skills, .reins/skills, ~/.claude/skills, ~/.reins/skills or a plugin's skills/)."
	}
	var b strings.Builder
	b.WriteString("Skills (the model loads one with the Skill tool when its description fits the task):")
	for _, s := range skills {
		fmt.Fprintf(&b, "\n  %s (%s, %s)", s.Name, s.Where, displayPath(s.File, m.cfg.Cwd))
		b.WriteString("\n    " + truncRunes(s.Description, max(m.width-8, 20)))
		if s.Note != "" {
			b.WriteString("\n    " + truncRunes(s.Note, max(m.width-8, 20)))
		}
	}
	return b.String()
}

// mcpReport is /mcp: each server with its state and tools.
func (m *Model) mcpReport() string {
	var servers []MCPServerInfo
	if m.cfg.MCP != nil {
		servers = m.cfg.MCP()
	}
	if len(servers) == 0 {
		return "No MCP servers configured (.mcp.json, settings, or --mcp-config)."
	}
	var b strings.Builder
	b.WriteString("MCP servers:")
	for _, s := range servers {
		fmt.Fprintf(&b, "\n  %s  %s, %s  %s", s.Name, s.Scope, s.Type, s.State)
		if s.Reason != "" {
			b.WriteString(": " + oneLine(s.Reason))
		}
		if len(s.Tools) > 0 {
			fmt.Fprintf(&b, "\n    tools: %s", strings.Join(s.Tools, ", "))
		}
		for _, sk := range s.Skipped {
			b.WriteString("\n    left out: " + sk)
		}
	}
	if m.cfg.Reconnect != nil {
		b.WriteString("\nStart a server again: /mcp reconnect NAME")
	}
	return b.String()
}

// reconnectDone is sent when /mcp reconnect (or a change in the /mcp menu) has finished; done
// says what became of the server ("reconnected" when empty).
type reconnectDone struct {
	name, done string
	err        error
}

// mcpCommand runs /mcp [reconnect NAME]. A reconnect waits for the server's start, off the
// UI's goroutine, and only between turns: the agent's tools change.
func (m *Model) mcpCommand(args []string) (string, tea.Cmd, error) {
	if len(args) == 0 {
		if u := m.mcpMenu(); u != nil {
			m.picker = u
			return "", nil, nil
		}
		return m.mcpReport(), nil, nil
	}
	if args[0] != "reconnect" || len(args) != 2 {
		return "", nil, fmt.Errorf("usage: /mcp, or /mcp reconnect NAME")
	}
	if m.cfg.Reconnect == nil {
		return "", nil, fmt.Errorf("reconnecting MCP servers is not available here")
	}
	if m.running {
		return "", nil, fmt.Errorf("wait for the turn to finish, or press Esc, before /mcp reconnect")
	}
	// The turn's flag keeps a turn from starting while the tools change: what is typed
	// meanwhile is queued, and sent once the server is back (or not).
	m.running = true
	name, reconnect, ctx := args[1], m.cfg.Reconnect, m.ctx
	return "Reconnecting MCP server " + name + "…", func() tea.Msg {
		return reconnectDone{name: name, err: reconnect(ctx, name)}
	}, nil
}

func (m *Model) reconnected(msg reconnectDone) tea.Cmd {
	m.running = false
	done := msg.done
	if done == "" {
		done = "reconnected"
	}
	if msg.err != nil {
		m.entries = append(m.entries, &entry{kind: entryError, text: msg.err.Error()})
	} else {
		text := "MCP server " + msg.name + " " + done + "."
		for _, s := range m.cfg.MCP() {
			if s.Name == msg.name {
				text += " Now: " + serverLine(s) + "."
			}
		}
		m.entries = append(m.entries, &entry{kind: entryInfo, text: text})
	}
	if len(m.queued) == 0 || m.ctx.Err() != nil {
		return nil
	}
	text := strings.Join(m.queued, "\n\n")
	m.queued = nil
	m.entries = append(m.entries, &entry{kind: entryUser, text: text})
	return m.startTurn(llm.UserText(text))
}
