package tui

import (
	"fmt"
	"path/filepath"
	"strings"
)

// banner is the first entry of the chat: what the session runs with, as Claude Code's start
// screen shows it. It scrolls away with the conversation; the status line keeps the mode.
func (m *Model) banner() *entry {
	folder := m.cfg.Cwd
	if home := m.cfg.Home; home != "" && (folder == home || strings.HasPrefix(folder, home+string(filepath.Separator))) {
		folder = "~" + strings.TrimPrefix(folder, home)
	}
	trust := "trusted: the project's settings, hooks and MCP servers apply"
	if !m.cfg.Trusted {
		trust = "not trusted: the project's settings, hooks and MCP servers are ignored"
	}
	var b strings.Builder
	b.WriteString("✻ Reins\n")
	fmt.Fprintf(&b, "model   %s\n", m.cfg.Agent.Model)
	fmt.Fprintf(&b, "folder  %s\n", folder)
	fmt.Fprintf(&b, "mode    %s\n", m.perms().Mode())
	fmt.Fprintf(&b, "trust   %s", trust)
	return &entry{kind: entryInfo, text: b.String()}
}
