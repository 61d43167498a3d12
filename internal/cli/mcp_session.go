package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/reinsdev/reins/internal/app"
	"github.com/reinsdev/reins/internal/sdkproto"
	"github.com/reinsdev/reins/mcp/client"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/sandbox"
)

// mcpFlags are the MCP flags of the commands that run tools.
type mcpFlags struct {
	configs []string
	strict  bool
	// approve, set by the interactive mode, asks the person about the project servers that
	// wait for approval, before any server starts.
	approve app.ProjectServerApprover
}

func (mf *mcpFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringArrayVar(&mf.configs, "mcp-config", nil, `MCP servers from a JSON file or inline JSON ({"mcpServers": {...}}; repeatable)`)
	fl.BoolVar(&mf.strict, "strict-mcp-config", false, "use only the servers of --mcp-config, ignoring every other MCP configuration")
}

// options are the flags as app takes them.
func (mf *mcpFlags) options() app.MCPOptions {
	return app.MCPOptions{Configs: mf.configs, Strict: mf.strict, Approver: mf.approve}
}

// startMCP is app.StartMCP for the commands that run or list tools outside a session; servers'
// requests for input are declined.
func startMCP(ctx context.Context, f *Factory, env *permEnv, mf *mcpFlags) (*app.MCP, error) {
	return app.StartMCP(ctx, env, env.Context, f.Getenv, mf.options(), nil, reporter(f))
}

// reporter shows what a session reports on f's standard error.
func reporter(f *Factory) app.Reporter {
	return app.Reporter{
		Warn:           func(m string) { f.warn("%s", m) },
		Note:           func(m string) { fmt.Fprintf(f.ErrOut, "reins: %s\n", m) },
		SandboxRefused: func(vs []sandbox.Violation) { printViolations(f.ErrOut, vs) },
	}
}

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

// isMCPToolName reports whether a tool name needs the MCP servers: an MCP tool or one of the
// resource tools.
func isMCPToolName(name string) bool {
	return permission.IsMCPName(name) || name == "ListMcpResourcesTool" || name == "ReadMcpResourceTool"
}
