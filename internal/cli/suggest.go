package cli

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/reinsdev/reins/internal/cli/cmdutil"
)

// finishTree applies what every command of the tree shares: a command that only groups others
// refuses an unknown subcommand with "did you mean" suggestions and exit 2 (cobra would print
// the group's help and exit 0), and prints its help when run alone; every other command's
// argument check fails as a usage error (exit 2), whichever of cobra's checks it uses.
func finishTree(root *cobra.Command) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		addExamples(c)
		c.SuggestionsMinimumDistance = 2 // cobra sets it only on the root, when it suggests itself
		switch {
		case c.HasSubCommands() && !c.Runnable():
			c.Args = requireSubcommand
			c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
		case c.Args != nil:
			c.Args = usageArgs(c.Args, c.HasSubCommands())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// usageArgs makes check's refusal a usage error. A group that runs on its own (reins mcp)
// names a refused first argument as an unknown subcommand, with suggestions, as a group that
// only groups others does.
func usageArgs(check cobra.PositionalArgs, group bool) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		err := check(cmd, args)
		if _, ok := errors.AsType[*cmdutil.UsageError](err); ok || err == nil {
			return err
		}
		if group && len(args) > 0 {
			return cmdutil.UnknownCommand(cmd, args[0], "")
		}
		return &cmdutil.UsageError{Err: err}
	}
}

// requireSubcommand is the argument check of a command that only groups others.
func requireSubcommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	return cmdutil.UnknownCommand(cmd, args[0], "")
}
