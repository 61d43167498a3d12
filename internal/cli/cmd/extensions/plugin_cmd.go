// Package extensions holds the commands that list what extends a session: `reins plugin`
// (list, enable, disable), `reins agents list` and `reins hooks list`.
package extensions

import (
	"context"
	"fmt"
	"path/filepath"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/reinsdev/reins/internal/app"
	"github.com/reinsdev/reins/internal/cli/cmdutil"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/settings"
)

// listedPlugin is one plugin as `reins plugin list --json` prints it.
type listedPlugin struct {
	Name        string `json:"name"`
	Version     string `json:"version,omitempty"`
	Description string `json:"description,omitempty"`
	Dir         string `json:"dir"`
	From        string `json:"from"`
}

func NewCmdPlugin(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plugin",
		Short: "List local plugins and turn them on or off (enabledPlugins)",
		Long: `A plugin is a folder with .claude-plugin/plugin.json that brings slash commands, sub-agents,
skills, hooks and MCP servers. Reins loads plugins from --plugin-dir and those the enabledPlugins
setting turns on that are already on disk: ~/.reins/plugins/<name>, ~/.claude/plugins/<name>, or
Claude Code's ~/.claude/plugins/cache/<marketplace>/<name>. It fetches nothing.

A plugin's hooks and MCP servers are governed as the project's own: they run only in a trusted
project, and its servers need approval like those of .mcp.json.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newCmdPluginList(f, nil), newCmdPluginEnable(f, true, nil), newCmdPluginEnable(f, false, nil))
	return cmd
}

type pluginListOptions struct {
	f          *cmdutil.Factory
	asJSON     bool
	pluginDirs []string
	perm       cmdutil.PermFlags
}

func newCmdPluginList(f *cmdutil.Factory, runF func(*pluginListOptions) error) *cobra.Command {
	opts := &pluginListOptions{f: f}
	list := &cobra.Command{
		Use:   "list",
		Short: "List the plugins a session in this folder loads",
		Example: `  reins plugin list
  reins plugin list --plugin-dir ./my-plugin --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return pluginListRun(cmd.Context(), opts)
		},
	}
	list.Flags().BoolVar(&opts.asJSON, "json", false, "print JSON")
	list.Flags().StringArrayVar(&opts.pluginDirs, "plugin-dir", nil, "also load the plugin in this folder (repeatable)")
	opts.perm.Register(list)
	return list
}

func pluginListRun(ctx context.Context, opts *pluginListOptions) error {
	f := opts.f
	env, err := opts.perm.Load(f)
	if err != nil {
		return err
	}
	set, warnings, err := app.LoadPlugins(ctx, env, opts.pluginDirs)
	if err != nil {
		return err
	}
	out := []listedPlugin{}
	for _, p := range set.Plugins {
		out = append(out, listedPlugin{Name: p.Name, Version: p.Version, Description: p.Description, Dir: p.Dir, From: p.From})
	}
	if opts.asJSON {
		return cmdutil.WriteJSON(f.Out, struct {
			Plugins  []listedPlugin `json:"plugins"`
			Warnings []string       `json:"warnings"`
		}{out, append([]string{}, warnings...)})
	}
	tw := tabwriter.NewWriter(f.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tVERSION\tFROM\tFOLDER")
	for _, p := range out {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", p.Name, cmdutil.OrDash(p.Version), p.From, p.Dir)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, w := range warnings {
		f.Warn("%s", w)
	}
	return nil
}

type pluginEnableOptions struct {
	f     *cmdutil.Factory
	on    bool
	args  []string
	scope string
}

// newCmdPluginEnable is `plugin enable` (on) or `plugin disable`: it writes
// enabledPlugins[KEY] to Reins' own user, project or local settings file.
func newCmdPluginEnable(f *cmdutil.Factory, on bool, runF func(*pluginEnableOptions) error) *cobra.Command {
	opts := &pluginEnableOptions{f: f, on: on}
	verb, short := "enable", "Turn a plugin on in the settings (enabledPlugins)"
	if !on {
		verb, short = "disable", "Turn a plugin off in the settings (enabledPlugins)"
	}
	cmd := &cobra.Command{
		Use:   verb + " NAME[@MARKETPLACE]",
		Short: short,
		Long: short + `. The entry is written to Reins' own settings file of the scope (user:
~/.reins/settings.json, project: .reins/settings.json, local: .reins/settings.local.json), under
its lock and atomically, the rest of the file kept. A later scope wins: local over project over user.`,
		Example: fmt.Sprintf("  reins plugin %s kit\n  reins plugin %s formatter@acme --scope project", verb, verb),
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.args = args
			if runF != nil {
				return runF(opts)
			}
			return pluginEnableRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.scope, "scope", "user", "where to write it: user, project or local")
	return cmd
}

func pluginEnableRun(ctx context.Context, opts *pluginEnableOptions) error {
	f, on := opts.f, opts.on
	verb := "enable"
	if !on {
		verb = "disable"
	}
	src, err := pluginScope(opts.scope)
	if err != nil {
		return err
	}
	if err := settings.ValidPluginKey(opts.args[0]); err != nil {
		return &cmdutil.UsageError{Err: err}
	}
	cwd, err := f.Getwd()
	if err != nil {
		return err
	}
	if r, err := filepath.EvalSymlinks(cwd); err == nil {
		cwd = r
	}
	loc := app.Locations(f.Getenv, cwd)
	if err := settings.SetPluginEnabled(loc, src, opts.args[0], on); err != nil {
		return err
	}
	path, _ := loc.PersistPath(src)
	fmt.Fprintf(f.Out, "%sd plugin %s in %s\n", verb, opts.args[0], path)
	return nil
}

func pluginScope(s string) (permission.Source, error) {
	switch s {
	case "user":
		return permission.SourceUser, nil
	case "project":
		return permission.SourceProject, nil
	case "local":
		return permission.SourceLocal, nil
	}
	return 0, &cmdutil.UsageError{Err: fmt.Errorf("--scope must be user, project or local, not %q", s)}
}
