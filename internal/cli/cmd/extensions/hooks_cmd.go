package extensions

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/reinsdev/reins/internal/app"
	"github.com/reinsdev/reins/internal/cli/cmdutil"
	"github.com/reinsdev/reins/settings"
)

func NewCmdHooks(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hooks",
		Short: "Show the hooks configured in the settings files",
	}
	cmd.AddCommand(newCmdHooksList(f, nil))
	return cmd
}

type hooksListOptions struct {
	f          *cmdutil.Factory
	perm       cmdutil.PermFlags
	asJSON     bool
	pluginDirs []string
}

func newCmdHooksList(f *cmdutil.Factory, runF func(*hooksListOptions) error) *cobra.Command {
	opts := &hooksListOptions{f: f}
	cmd := &cobra.Command{
		Use:     "list",
		Example: "  reins hooks list\n  reins hooks list --json",
		Short:   "List every hook with the file:line:col that configures it, and whether it runs",
		Long: `Lists the hooks of every settings source (Reins' and Claude Code's user, project, local,
--settings and managed files), in load order, each with the file:line:col of its entry. A hook
that does not run says why: the project is not trusted (run "reins trust"), disableAllHooks
is set, or a managed policy sets allowManagedHooksOnly. The hooks of plugins (enabledPlugins,
--plugin-dir) follow, governed as the project's. An invalid hook configuration is an error
naming its position.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return hooksListRun(cmd.Context(), opts)
		},
	}
	opts.perm.Register(cmd)
	cmd.Flags().BoolVar(&opts.asJSON, "json", false, "print the hooks as JSON")
	cmd.Flags().StringArrayVar(&opts.pluginDirs, "plugin-dir", nil, "also list the hooks of the plugin in this folder (repeatable)")
	return cmd
}

func hooksListRun(ctx context.Context, opts *hooksListOptions) error {
	f := opts.f
	env, err := opts.perm.Load(f)
	if err != nil {
		return err
	}
	for _, w := range env.Report.Warnings {
		f.Warn("%s", w)
	}
	ps, warnings, err := app.LoadPlugins(ctx, env, opts.pluginDirs)
	if err != nil {
		return err
	}
	pluginHooks, hw, err := app.PluginHooks(ctx, env, ps)
	if err != nil {
		return err
	}
	for _, w := range append(warnings, hw...) {
		f.Warn("%s", w)
	}
	entries := append(env.Loaded.Hooks(env.Trusted), pluginHooks...)
	if opts.asJSON {
		if entries == nil {
			entries = []settings.HookEntry{}
		}
		return cmdutil.WriteJSON(f.Out, entries)
	}
	if len(entries) == 0 {
		fmt.Fprintln(f.Out, "No hooks are configured.")
		return nil
	}
	for _, h := range entries {
		event := h.Event
		if h.Matcher != "" {
			event += "(" + h.Matcher + ")"
		}
		line := fmt.Sprintf("%s: %s: %s", h.Origin(), event, h.Runs())
		if h.TimeoutSeconds > 0 {
			line += fmt.Sprintf(" [timeout %gs]", h.TimeoutSeconds)
		}
		if h.Skipped != "" {
			line += " — skipped: " + h.Skipped
		}
		fmt.Fprintln(f.Out, line)
	}
	return nil
}
