package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/reinsdev/reins/internal/cli/cmdutil"
)

// newCmdVersion is `reins version`, the same text as `reins --version`.
func newCmdVersion(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the version, commit and Go version of this reins",
		Args:    cobra.NoArgs,
		Example: "  reins version\n  reins --version",
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprint(f.Out, cmdutil.BuildVersion())
			return err
		},
	}
}
