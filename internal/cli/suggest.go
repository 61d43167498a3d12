package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
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
		if _, ok := errors.AsType[*usageError](err); ok || err == nil {
			return err
		}
		if group && len(args) > 0 {
			return unknownCommand(cmd, args[0], "")
		}
		return &usageError{err}
	}
}

// requireSubcommand is the argument check of a command that only groups others.
func requireSubcommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	return unknownCommand(cmd, args[0], "")
}

// unknownCommand is the usage error for name, not a subcommand of cmd, with the subcommands
// it is close to. hint, when set, ends the message.
func unknownCommand(cmd *cobra.Command, name, hint string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "unknown command %q for %q", name, cmd.CommandPath())
	if s := cmd.SuggestionsFor(name); len(s) > 0 {
		fmt.Fprintf(&b, "; did you mean %s?", orList(s))
	} else if hint == "" {
		fmt.Fprintf(&b, "; run '%s --help' for the commands", cmd.CommandPath())
	}
	if hint != "" {
		b.WriteString(" " + hint)
	}
	return &usageError{fmt.Errorf("%s", b.String())}
}

// orList joins command names as "a", "a or b", "a, b or c".
func orList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}
