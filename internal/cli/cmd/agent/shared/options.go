package shared

import (
	"github.com/reinsdev/reins/internal/app"
	"github.com/reinsdev/reins/internal/cli/cmdutil"
	"github.com/reinsdev/reins/internal/sdkproto"
	"github.com/reinsdev/reins/mcp/client"
)

type Options struct {
	// chat is set by the interactive mode: it keeps file checkpoints for /rewind.
	Chat               bool
	Perm               cmdutil.PermFlags
	Worktree           WorktreeFlag
	MCP                cmdutil.MCPFlags
	Print              bool
	OutputFormat       string
	Model              string
	Provider           string
	MaxTurns           int
	AppendSystemPrompt string
	ContinueLast       bool
	Resume             string
	Verbose            bool
	Agents             string
	PluginDirs         []string
	// initPlugins are the plugin folders of the initialize request read at launch
	// (--await-initialize).
	InitPlugins []string
	Hooks       HookOptions
	SDK         SDKFlags
}

// mcpStatuses are the configured servers and their state, in Claude Code's words (connected,
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
