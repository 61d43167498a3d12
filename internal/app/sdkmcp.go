package app

import (
	"context"
	"errors"

	"github.com/reinsdev/reins/mcp/client"
)

// SDKServerEntries checks the in-process MCP servers an SDK caller names (initialize's
// sdkMcpServers) before anything is applied: valid names, none the name of a configured
// server, and the managed allowedMcpServers / deniedMcpServers applied as to any server.
func (a *App) SDKServerEntries(names []string) ([]client.Entry, error) {
	if len(names) == 0 {
		return nil, nil
	}
	if a.Ext.MCP == nil {
		return nil, errors.New("in-process MCP servers: this session has no MCP client")
	}
	var taken []string
	for _, st := range a.Ext.MCP.Status() {
		taken = append(taken, st.Name)
	}
	return client.SDKEntries(MCPLoadOptions(a.Settings, a.opts.Getenv, a.opts.MCP), names, taken)
}

// AddSDKServers starts the caller's in-process servers with host carrying their messages, and
// makes the pool again with their tools, as New does with the configured servers' (names,
// deny rules, deferral and ToolSearch, --tools). It runs between turns: the agent's tools and
// system prompt change. A server that fails is reported and left out, like any server.
func (a *App) AddSDKServers(ctx context.Context, entries []client.Entry, host client.SDKHost) error {
	if len(entries) == 0 {
		return nil
	}
	a.Ext.MCP.Manager.AddSDK(ctx, entries, host)
	for _, st := range a.Ext.MCP.Status() {
		if st.Scope != client.ScopeSDK {
			continue
		}
		switch st.State {
		case client.StateFailed:
			a.opts.Report.warn("MCP server %s failed: %s", st.Name, st.Reason)
		case string(client.StateDenied):
			a.opts.Report.warn("MCP server %s was not started: %s", st.Name, st.Reason)
		}
		for _, sk := range st.Skipped {
			a.opts.Report.warn("MCP server %s: tool %s", st.Name, sk)
		}
	}
	deferral, err := a.extendPool(a.Permissions.Context())
	if err != nil {
		return err
	}
	system, err := SystemPrompt(ctx, deferral.Sent(a.Pool.Tools), a.Prompt)
	if err != nil {
		return err
	}
	a.Agent.Tools, a.Agent.Deferral, a.Agent.System = a.Pool.Tools, deferral, system
	return nil
}
