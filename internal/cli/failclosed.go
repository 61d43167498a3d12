package cli

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/reinsdev/reins/internal/cli/cmdutil"
)

// geteuid is the effective user id of a factory that names none; tests that pretend to be
// root replace it.
var geteuid = os.Geteuid

// listFlagHint explains a missing prompt that a list flag may have taken as rules.
func listFlagHint(pf cmdutil.PermFlags) string {
	if len(pf.Allowed)+len(pf.Disallowed) < 2 {
		return ""
	}
	return `; --allowedTools and --disallowedTools take every value up to the next flag, so end their list with "--" before the prompt`
}

// expandToolLists is [cmdutil.ExpandToolLists], under the name the package's tests know.
func expandToolLists(root *cobra.Command, args []string) ([]string, error) {
	return cmdutil.ExpandToolLists(root, args)
}
