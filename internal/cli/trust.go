package cli

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/reinsdev/reins/settings"
)

func newCmdTrust(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "trust [DIR]",
		Short: "Trust a project folder, so the allow rules of its shared settings apply",
		Long: `Records DIR (default: the current folder) as trusted under the Reins config folder.
In an untrusted project the allow rules and additionalDirectories of the shared project
settings (.reins/settings.json, .claude/settings.json) are ignored; its deny and ask rules
always apply. Trusting a folder trusts everything below it.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := workDir(f)
			if err != nil {
				return err
			}
			if len(args) == 1 {
				if filepath.IsAbs(args[0]) {
					dir = filepath.Clean(args[0])
				} else {
					dir = filepath.Join(dir, args[0])
				}
			}
			opts := settingsOptions(f, dir)
			if err := settings.Trust(opts.ConfigDir, dir); err != nil {
				return err
			}
			fmt.Fprintf(f.Out, "Trusted %s\n", dir)
			return nil
		},
	}
}
