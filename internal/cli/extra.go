package cli

import (
	"github.com/reinsdev/reins/internal/cli/cmdutil"
	"github.com/spf13/cobra"
)

// addMoreCommands registers the commands of the tool and agent layers.
func addMoreCommands(f *cmdutil.Factory, root *cobra.Command) {
	addToolCommands(f, root)
	addAgentCommands(f, root)
	root.AddCommand(newCmdAgents(f), newCmdMCP(f), newCmdSandbox(f), newCmdDoctor(f), newCmdAudit(f), newCmdPolicy(f), newCmdRewind(f), newCmdPlugin(f))
}
