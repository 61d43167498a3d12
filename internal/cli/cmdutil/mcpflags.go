package cmdutil

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/reinsdev/reins/internal/app"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/sandbox"
)

// MCPFlags are the MCP flags of the commands that run tools.
type MCPFlags struct {
	Configs []string
	Strict  bool
	// approve, set by the interactive mode, asks the person about the project servers that
	// wait for approval, before any server starts.
	Approve app.ProjectServerApprover
}

func (mf *MCPFlags) Register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringArrayVar(&mf.Configs, "mcp-config", nil, `MCP servers from a JSON file or inline JSON ({"mcpServers": {...}}; repeatable)`)
	fl.BoolVar(&mf.Strict, "strict-mcp-config", false, "use only the servers of --mcp-config, ignoring every other MCP configuration")
}

// Options are the flags as app takes them.
func (mf *MCPFlags) Options() app.MCPOptions {
	return app.MCPOptions{Configs: mf.Configs, Strict: mf.Strict, Approver: mf.Approve}
}

// StartMCP is app.StartMCP for the commands that run or list tools outside a session; servers'
// requests for input are declined.
func StartMCP(ctx context.Context, f *Factory, env *PermEnv, mf *MCPFlags) (*app.MCP, error) {
	return app.StartMCP(ctx, env, env.Context, f.Getenv, mf.Options(), nil, Reporter(f))
}

// Reporter shows what a session reports on f's standard error.
func Reporter(f *Factory) app.Reporter {
	return app.Reporter{
		Warn:           func(m string) { f.Warn("%s", m) },
		Note:           func(m string) { fmt.Fprintf(f.ErrOut, "reins: %s\n", m) },
		SandboxRefused: func(vs []sandbox.Violation) { PrintViolations(f.ErrOut, vs) },
	}
}

// IsMCPToolName reports whether a tool name needs the MCP servers: an MCP tool or one of the
// resource tools.
func IsMCPToolName(name string) bool {
	return permission.IsMCPName(name) || name == "ListMcpResourcesTool" || name == "ReadMcpResourceTool"
}
