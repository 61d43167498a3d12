package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/internal/cli/cmdutil"
)

// hookOptions are the agent's hook flags.
type hookOptions struct {
	includeEvents bool
}

func (o *hookOptions) register(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&o.includeEvents, "include-hook-events", false, "with --output-format stream-json: a line when each hook starts and ends")
}

// printHookMessages prints what hooks tell the person on standard error.
func printHookMessages(f *cmdutil.Factory, bus *agent.Bus) (unsubscribe func()) {
	return bus.Subscribe(func(ev agent.Event) {
		if ev.Type == agent.EventHookMessage {
			fmt.Fprintf(f.ErrOut, "reins: hook: %s\n", ev.Text)
		}
	})
}
