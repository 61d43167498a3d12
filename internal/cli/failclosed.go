package cli

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/reinsdev/reins/internal/cli/cmdutil"
)

// geteuid is the effective user id of a factory that names none; tests that pretend to be
// root replace it.
var geteuid = os.Geteuid

// expandToolLists is [cmdutil.ExpandToolLists], under the name the package's tests know.
func expandToolLists(root *cobra.Command, args []string) ([]string, error) {
	return cmdutil.ExpandToolLists(root, args)
}
