package cli

import (
	"context"
	"encoding/json"

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
	apply := srv.OnInitialize
	srv.OnInitialize = func(req sdkproto.InitializeRequest) error {
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
	srv.ConnectSDKMCP = func(ctx context.Context, _ []string) error {
		if err := a.AddSDKServers(ctx, entries, srv); err != nil {
			return err
		}
		srv.UpdateInit(func(info *sdkproto.InitInfo) {
			info.Tools = tools.Names(a.Agent.Tools)
			info.MCPServers = mcpStatuses(a.MCP)
		})
		return nil
	}
	srv.MCPMessage = func(server string, message json.RawMessage) error {
		return a.MCP.Manager.DeliverSDK(server, message)
	}
}
