package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/reinsdev/reins/internal/cli/cmdutil"
)

// newCmdVersion is `reins version`, the same text as `reins --version`.
type versionOptions struct {
	f *cmdutil.Factory
}

func newCmdVersion(f *cmdutil.Factory, runF func(*versionOptions) error) *cobra.Command {
	opts := &versionOptions{f: f}
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the version, commit and Go version of this reins",
		Args:    cobra.NoArgs,
		Example: "  reins version\n  reins --version",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return versionRun(cmd.Context(), opts)
		},
	}
}

func versionRun(ctx context.Context, opts *versionOptions) error {
	f := opts.f
	_, err := fmt.Fprint(f.Out, cmdutil.BuildVersion())
	return err
}
