package cmdutil

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

// UnknownCommand is the usage error for name, not a subcommand of cmd, with the subcommands
// it is close to. hint, when set, ends the message.
func UnknownCommand(cmd *cobra.Command, name, hint string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "unknown command %q for %q", name, cmd.CommandPath())
	if s := cmd.SuggestionsFor(name); len(s) > 0 {
		fmt.Fprintf(&b, "; did you mean %s?", OrList(s))
	} else if hint == "" {
		fmt.Fprintf(&b, "; run '%s --help' for the commands", cmd.CommandPath())
	}
	if hint != "" {
		b.WriteString(" " + hint)
	}
	return &UsageError{Err: fmt.Errorf("%s", b.String())}
}

// OrList joins command names as "a", "a or b", "a, b or c".
func OrList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// NearMissCommand reports whether args, which a terminal would send to the chat as its first
// message, read as a mistyped command instead: the first word is an edit or two from a
// command's name (permission, permision), and any next word is one of that command's subcommands or a
// flag (reins permission check). A sentence, or a quoted message, is not.
func NearMissCommand(root *cobra.Command, args []string) bool {
	if len(args) == 0 || strings.ContainsAny(args[0], " \t\n") {
		return false
	}
	for _, c := range root.Commands() {
		// One edit, or two for a long name (permision): a short word two edits away is as
		// likely a message (hello, help).
		d := EditDistance(c.Name(), args[0])
		if c.Hidden || c.Name() == args[0] || d > 2 || d == 2 && len(c.Name()) < 8 {
			continue
		}
		if len(args) == 1 || strings.HasPrefix(args[1], "-") {
			return true
		}
		for _, sub := range c.Commands() {
			if sub.Name() == args[1] || slices.Contains(sub.Aliases, args[1]) {
				return true
			}
		}
	}
	return false
}

// EditDistance is the Levenshtein distance of a and b, bytes compared.
func EditDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
