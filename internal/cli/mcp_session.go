package cli

import (
	"github.com/reinsdev/reins/internal/app"
	"github.com/reinsdev/reins/internal/sdkproto"
	"github.com/reinsdev/reins/mcp/client"
)

// mcpStatuses are the configured servers and their state, in Claude Code's words (connected,
// failed, pending for one that waits for approval, disabled), for system/init and mcp_status.
func mcpStatuses(m *app.MCP) []sdkproto.MCPServer {
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
