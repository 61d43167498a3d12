package permissions

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/reinsdev/reins/internal/cli/cmdutil"
	"github.com/reinsdev/reins/memory"
	"github.com/reinsdev/reins/settings"
)

type trustOptions struct {
	f    *cmdutil.Factory
	args []string
}

// NewCmdTrust is `reins trust [DIR]`.
func NewCmdTrust(f *cmdutil.Factory, runF func(*trustOptions) error) *cobra.Command {
	opts := &trustOptions{f: f}
	return &cobra.Command{
		Use:   "trust [DIR]",
		Short: "Trust a project folder, so the allow rules of its shared settings apply",
		Long: `Records DIR (default: the current folder) as trusted under the Reins config folder.
In an untrusted project the allow rules and additionalDirectories of the shared project
settings (.reins/settings.json, .claude/settings.json) are ignored; its deny and ask rules
always apply. Its memory files (CLAUDE.md, .claude/CLAUDE.md, AGENTS.md) are read either way,
but until it is trusted the model is told they are the repository's information, not
instructions, and they may not import files outside the project. Trusting a folder trusts
the folders below it, but not another repository beneath it (a folder with its own .git):
trust each project. The file-system root, the home folder, a folder above it and a shared
temporary folder cannot be trusted: every project beneath them would be, including any
cloned there later.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.args = args
			if runF != nil {
				return runF(opts)
			}
			return trustRun(cmd.Context(), opts)
		},
	}
}

func trustRun(ctx context.Context, opts *trustOptions) error {
	f := opts.f
	dir, err := cmdutil.WorkDir(f)
	if err != nil {
		return err
	}
	cwd := dir
	if len(opts.args) == 1 {
		if filepath.IsAbs(opts.args[0]) {
			dir = filepath.Clean(opts.args[0])
		} else {
			dir = filepath.Join(dir, opts.args[0])
		}
	}
	loc := cmdutil.SettingsOptions(f, dir)
	if err := settings.Trust(loc.ConfigDir, loc.Home, dir); err != nil {
		return tooBroadHint(err, loc.Home, cwd)
	}
	fmt.Fprintf(f.Out, "Trusted %s\n", dir)
	fmt.Fprintln(f.Out, "Its shared settings' allow rules now apply, and its memory files (CLAUDE.md, AGENTS.md) reach the model as instructions and may import files outside it.")
	return nil
}

// tooBroadHint adds to a refusal to trust a folder too broad the command that trusts the
// project the person is in: the git work tree holding cwd, or cwd.
func tooBroadHint(err error, home, cwd string) error {
	var tb *settings.TooBroadError
	if !errors.As(err, &tb) {
		return err
	}
	proj := memory.ProjectRoot(cwd)
	if settings.CheckTrustable(home, proj) != nil {
		return fmt.Errorf("%w; trust each project instead: cd into it and run reins trust", err)
	}
	return fmt.Errorf("%w; trust each project instead, e.g. reins trust %s", err, proj)
}
