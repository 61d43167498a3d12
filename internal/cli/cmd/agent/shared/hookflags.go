package shared

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/internal/cli/cmdutil"
)

// HookOptions are the agent's hook flags.
type HookOptions struct {
	IncludeEvents bool
}

func (o *HookOptions) Register(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&o.IncludeEvents, "include-hook-events", false, "with --output-format stream-json: a line when each hook starts and ends")
}

// PrintHookMessages prints what hooks tell the person on standard error.
func PrintHookMessages(f *cmdutil.Factory, bus *agent.Bus) (unsubscribe func()) {
	return bus.Subscribe(func(ev agent.Event) {
		if ev.Type == agent.EventHookMessage {
			fmt.Fprintf(f.ErrOut, "reins: hook: %s\n", ev.Text)
		}
	})
}
