package cli

import (
	"github.com/spf13/cobra"

	"github.com/reinsdev/reins/internal/cli/cmd/agent"
	"github.com/reinsdev/reins/internal/cli/cmd/audit"
	"github.com/reinsdev/reins/internal/cli/cmd/extensions"
	"github.com/reinsdev/reins/internal/cli/cmd/mcp"
	"github.com/reinsdev/reins/internal/cli/cmd/rewind"
	"github.com/reinsdev/reins/internal/cli/cmd/sandbox"
	"github.com/reinsdev/reins/internal/cli/cmd/tools"
	"github.com/reinsdev/reins/internal/cli/cmdutil"
)

// addMoreCommands registers the commands of the tool and agent layers.
func addMoreCommands(f *cmdutil.Factory, root *cobra.Command) {
	tools.AddToolCommands(f, root)
	agent.AddAgentCommands(f, root, nil)
	root.AddCommand(extensions.NewCmdAgents(f), mcp.NewCmdMCP(f), sandbox.NewCmdSandbox(f), sandbox.NewCmdDoctor(f, nil), audit.NewCmdAudit(f), audit.NewCmdPolicy(f), rewind.NewCmdRewind(f, nil), extensions.NewCmdPlugin(f))
}
