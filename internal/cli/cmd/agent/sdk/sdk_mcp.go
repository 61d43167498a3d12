package sdk

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/reinsdev/reins/internal/app"
	"github.com/reinsdev/reins/internal/sdkproto"
	"github.com/reinsdev/reins/mcp/client"
	"github.com/reinsdev/reins/tools"
)

// serveSDKServers lets the SDK caller's in-process MCP servers (createSdkMcpServer) join the
// session: initialize's sdkMcpServers are checked with the rest of the request, before
// anything is applied; once initialize is answered they start like any MCP server, with srv
// carrying their messages as mcp_message requests, and the next turn sees their tools.
func serveSDKServers(a *app.App, srv *sdkproto.Server) {
	var entries []client.Entry
	apply := srv.Handlers.OnInitialize
	srv.Handlers.OnInitialize = func(req sdkproto.InitializeRequest) error {
		if err := checkSDKServerConfigs(req); err != nil {
			return err
		}
		es, err := a.SDKServerEntries(req.SDKMCPServers)
		if err != nil {
			return err
		}
		if err := apply(req); err != nil {
			return err
		}
		entries = es
		return nil
	}
	srv.Handlers.ConnectSDKMCP = func(ctx context.Context, _ []string) error {
		if err := a.AddSDKServers(ctx, entries, srv); err != nil {
			return err
		}
		srv.UpdateInit(func(info *sdkproto.InitInfo) {
			info.Tools = tools.Names(a.Agent.Tools)
			info.MCPServers = MCPStatuses(a.Ext.MCP)
		})
		return nil
	}
	srv.Handlers.MCPMessage = func(server string, message json.RawMessage) error {
		return a.Ext.MCP.Manager.DeliverSDK(server, message)
	}
}

// checkSDKServerConfigs refuses a per-tool policy (always_ask, always_deny) the host declares
// for one of its in-process servers: Reins does not apply one yet, and a deny the host
// declared must not silently be absent. The other settings (timeout, …) only tune.
func checkSDKServerConfigs(req sdkproto.InitializeRequest) error {
	for name, raw := range req.SDKMCPServerConfigs {
		if !slices.Contains(req.SDKMCPServers, name) {
			continue // the protocol ignores entries of servers not named
		}
		var cfg struct {
			Tools json.RawMessage `json:"tools"`
		}
		if json.Unmarshal(raw, &cfg) != nil {
			continue // a value not of the documented shape is ignored, as Claude Code does
		}
		var tools []json.RawMessage
		if json.Unmarshal(cfg.Tools, &tools) == nil && len(tools) > 0 {
			return fmt.Errorf("initialize sdkMcpServerConfigs: server %q declares a per-tool policy (tools), which reins does not apply yet; use deny and ask rules for mcp__%s__<tool>", name, name)
		}
	}
	return nil
}
