package sdk

import (
	"github.com/reinsdev/reins/agentdef"
	"github.com/reinsdev/reins/commands"
	"github.com/reinsdev/reins/internal/app"
	"github.com/reinsdev/reins/internal/cli/cmd/agent/shared"
	"github.com/reinsdev/reins/internal/cli/cmdutil"
	"github.com/reinsdev/reins/internal/sdkproto"
	"github.com/reinsdev/reins/mcp/client"
	"github.com/reinsdev/reins/plugins"
	"github.com/reinsdev/reins/skills"
	"github.com/reinsdev/reins/tools"
)

// InitInfo is what system/init reports.
func InitInfo(f *cmdutil.Factory, a *app.App) sdkproto.InitInfo {
	return sdkproto.InitInfo{Cwd: a.Cwd, Tools: tools.Names(a.Agent.Tools), Model: a.Provider.Model, Provider: a.Provider.Name,
		PermissionMode: string(a.Permissions.Context().Mode()), APIKeySource: shared.APIKeySource(a.Provider), Version: shared.ReinsVersion(),
		MCPServers: MCPStatuses(a.Ext.MCP), Agents: agentNames(a.Ext.Agents), Commands: slashCommands(a.Ext.Commands),
		Skills: skillNames(a.Ext.Skills), Plugins: pluginInfos(a.Ext.Plugins)}
}

// slashCommands are the custom slash commands as the SDK lists them.
func slashCommands(set *commands.Set) []sdkproto.SlashCommand {
	var out []sdkproto.SlashCommand
	for _, c := range set.All() {
		out = append(out, sdkproto.SlashCommand{Name: c.Name, Description: c.Description + " (" + string(c.Source) + ")", ArgumentHint: c.ArgumentHint})
	}
	return out
}

func agentNames(defs *agentdef.Set) []string {
	var out []string
	for _, d := range defs.All() {
		out = append(out, d.Name)
	}
	return out
}

func skillNames(set *skills.Set) []string {
	var out []string
	for _, s := range set.All() {
		out = append(out, s.Name)
	}
	return out
}

func pluginInfos(set *plugins.Set) []sdkproto.Plugin {
	var out []sdkproto.Plugin
	if set != nil {
		for _, p := range set.Plugins {
			out = append(out, sdkproto.Plugin{Name: p.Name, Path: p.Dir})
		}
	}
	return out
}

// MCPStatuses are the configured servers and their state, in Claude Code's words (connected,
// failed, pending for one that waits for approval, disabled), for system/init and mcp_status.
func MCPStatuses(m *app.MCP) []sdkproto.MCPServer {
	out := []sdkproto.MCPServer{}
	for _, st := range m.Status() {
		status := string(st.State)
		switch client.State(st.State) {
		case client.StateNeedsApproval:
			status = "pending"
		case client.StateDenied, client.StateDisabled, client.StateInvalid:
			status = "disabled"
		}
		out = append(out, sdkproto.MCPServer{Name: st.Name, Status: status})
	}
	return out
}
