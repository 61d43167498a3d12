package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// /mcp is a menu of the MCP servers, each with its state and the number of its tools; choosing
// one opens its own menu: its tools (by their names on the server), what was left out, and
// Reconnect and Turn off / Turn on, which run between turns, off the UI's goroutine.

// mcpAction is what the server menu does.
type mcpAction int

const (
	mcpReconnect mcpAction = iota
	mcpTurnOff
	mcpTurnOn
	mcpBack
)

// mcpMenu is the list of servers; nil when there are none.
func (m *Model) mcpMenu() *menu {
	var servers []MCPServerInfo
	if m.cfg.MCP != nil {
		servers = m.cfg.MCP()
	}
	if len(servers) == 0 {
		return nil
	}
	u := &menu{title: "MCP servers", lines: []string{"Choose a server for its tools, to reconnect it or to turn it off for this session."}}
	for _, s := range servers {
		u.items = append(u.items, menuItem{label: s.Name, detail: serverLine(s), value: s.Name})
	}
	u.choose = func(m *Model, it menuItem) (*menu, tea.Cmd) { return m.serverMenu(it.value.(string)), nil }
	return u
}

// serverLine is a server's state in a few words: "connected · 3 tools · project, stdio".
func serverLine(s MCPServerInfo) string {
	parts := []string{s.State}
	if s.Reason != "" && s.State != "connected" {
		parts[0] += ": " + oneLine(s.Reason)
	}
	if len(s.Tools) > 0 {
		parts = append(parts, count(len(s.Tools), "tool"))
	}
	return strings.Join(append(parts, s.Scope+", "+s.Type), " · ")
}

// serverMenu is the menu of the server name, as it stands now.
func (m *Model) serverMenu(name string) *menu {
	var s *MCPServerInfo
	for _, info := range m.cfg.MCP() {
		if info.Name == name {
			s = &info
		}
	}
	if s == nil {
		return m.mcpMenu()
	}
	u := &menu{title: "MCP server " + name, lines: []string{serverLine(*s)}}
	if len(s.Tools) > 0 {
		short := make([]string, len(s.Tools))
		for i, t := range s.Tools {
			short[i] = strings.TrimPrefix(t, "mcp__"+name+"__")
		}
		u.lines = append(u.lines, fmt.Sprintf("Tools (%d, mcp__%s__…): %s", len(s.Tools), name, strings.Join(short, ", ")))
	}
	for _, sk := range s.Skipped {
		u.lines = append(u.lines, "Left out: "+sk)
	}
	started := s.State == "connected" || s.State == "failed" || s.State == "restarting"
	if started && m.cfg.Reconnect != nil {
		u.items = append(u.items, menuItem{label: "Reconnect", detail: "start it again", value: mcpReconnect})
	}
	if m.cfg.SetMCPEnabled != nil {
		switch {
		case started:
			u.items = append(u.items, menuItem{label: "Turn off", detail: "for this session: its tools leave it", value: mcpTurnOff})
		case s.State == "off":
			u.items = append(u.items, menuItem{label: "Turn on", detail: "start it again in this session", value: mcpTurnOn})
		}
	}
	u.items = append(u.items, menuItem{label: "Back", detail: "to the servers", value: mcpBack})
	u.choose = func(m *Model, it menuItem) (*menu, tea.Cmd) {
		switch it.value.(mcpAction) {
		case mcpBack:
			return m.mcpMenu(), nil
		case mcpReconnect:
			return nil, m.mcpRun(name, "reconnecting", "reconnected", func() error { return m.cfg.Reconnect(m.ctx, name) })
		case mcpTurnOff:
			return nil, m.mcpRun(name, "turning off", "turned off for this session", func() error { return m.cfg.SetMCPEnabled(m.ctx, name, false) })
		case mcpTurnOn:
			return nil, m.mcpRun(name, "turning on", "turned on", func() error { return m.cfg.SetMCPEnabled(m.ctx, name, true) })
		}
		return nil, nil
	}
	return u
}

// mcpRun runs a change of a server off the UI's goroutine, between turns: the agent's tools
// change. What is typed meanwhile is held, and sent once it is done.
func (m *Model) mcpRun(name, doing, done string, f func() error) tea.Cmd {
	if m.running {
		m.sayErr("wait for the turn to finish, or press Esc, before changing an MCP server")
		return nil
	}
	m.running = true
	m.say("MCP server " + name + ": " + doing + "…")
	return func() tea.Msg { return reconnectDone{name: name, done: done, err: f()} }
}
