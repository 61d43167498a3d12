package cli

import "github.com/spf13/cobra"

// newCmdMCPParent is the `reins mcp` command group as far as `mcp serve` needs it. The MCP
// client's commands (mcp add, list, ...) live beside it; when both exist, serve joins their
// parent command and this file goes.
func newCmdMCPParent(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Model Context Protocol: serve Reins' guarded tools to MCP clients",
	}
	cmd.AddCommand(newMCPServeCmd(f))
	return cmd
}
