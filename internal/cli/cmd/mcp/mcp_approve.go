package mcp

import (
	"context"
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/reinsdev/reins/internal/app"
	"github.com/reinsdev/reins/internal/cli/cmdutil"
	"github.com/reinsdev/reins/mcp/client"
)

type mcpApproveOptions struct {
	f          *cmdutil.Factory
	args       []string
	reject     bool
	pluginDirs []string
}

// newCmdMCPApprove is `reins mcp approve|reject NAME`: the person's answer for a project server
// of .mcp.json, kept in ~/.reins.json under this project (enabledMcpjsonServers /
// disabledMcpjsonServers), where the repository cannot write it.
func newCmdMCPApprove(f *cmdutil.Factory, runF func(*mcpApproveOptions) error) *cobra.Command {
	opts := &mcpApproveOptions{f: f}
	cmd := &cobra.Command{
		Use:     "approve NAME",
		Example: "  reins mcp approve filesystem\n  reins mcp approve filesystem --reject",
		Short:   "Approve (or with --reject, refuse) a project server of .mcp.json for this project",
		Long: `Project servers come with the repository, so they start only once you approve them, and
only in a project you trusted (reins trust). The answer is stored in ~/.reins.json for this
project, as enabledMcpjsonServers or disabledMcpjsonServers. A plugin's servers
(plugin_<plugin>_<server>) are project servers too: those of the plugins enabledPlugins turns
on, and of --plugin-dir.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.args = args
			if runF != nil {
				return runF(opts)
			}
			return mcpApproveRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.reject, "reject", false, "refuse the server instead")
	cmd.Flags().StringArrayVar(&opts.pluginDirs, "plugin-dir", nil, "a plugin folder whose servers may be named too (repeatable)")
	return cmd
}

func mcpApproveRun(ctx context.Context, opts *mcpApproveOptions) error {
	f := opts.f
	name := opts.args[0]
	cwd, err := cmdutil.WorkDir(f)
	if err != nil {
		return err
	}
	servers, err := client.ParseConfigDocumentFile(cwd)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(servers, func(c client.ServerConfig) bool { return c.Name == name }) {
		env, err := (&cmdutil.PermFlags{}).Load(f)
		if err != nil {
			return err
		}
		ps, err := pluginServers(ctx, env, opts.pluginDirs)
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(ps, func(c client.ServerConfig) bool { return c.Name == name }) {
			return cmdutil.UsageErrorf("no server %q in this project's .mcp.json or its plugins", name)
		}
	}
	path, err := RecordProjectServerAnswer(f, cwd, name, opts.reject)
	if err != nil {
		return err
	}
	verb := "Approved"
	if opts.reject {
		verb = "Refused"
	}
	fmt.Fprintf(f.Out, "%s project MCP server %s for %s (%s)\n", verb, name, cwd, path)
	return nil
}

// pluginServers are the MCP servers of the plugins a session here loads: the enabled ones on
// disk and those of dirs.
func pluginServers(ctx context.Context, env *cmdutil.PermEnv, dirs []string) ([]client.ServerConfig, error) {
	ps, _, err := app.LoadPlugins(ctx, env, dirs)
	if err != nil {
		return nil, err
	}
	return app.PluginServers(ctx, ps)
}

// RecordProjectServerAnswer keeps the person's answer for the project server name of the
// .mcp.json in cwd, in ~/.reins.json under that project: `reins mcp approve` and the
// interactive mode's approval dialog both record through it. It returns the file written.
func RecordProjectServerAnswer(f *cmdutil.Factory, cwd, name string, reject bool) (string, error) {
	path, _, err := mcpScopeTarget(f, "user")
	if err != nil {
		return "", err
	}
	add, drop := "enabledMcpjsonServers", "disabledMcpjsonServers"
	if reject {
		add, drop = drop, add
	}
	err = editJSONFile(path, func(doc map[string]any) error {
		proj := dig(doc, []string{"projects", cwd}, true)
		proj[add] = appendName(proj[add], name)
		if list, ok := proj[drop].([]any); ok {
			proj[drop] = slices.DeleteFunc(list, func(v any) bool { return v == name })
		}
		return nil
	})
	return path, err
}

func appendName(v any, name string) []any {
	list, _ := v.([]any)
	if slices.Contains(list, any(name)) {
		return list
	}
	return append(list, name)
}

// newCmdMCPRepin is `reins mcp repin NAME`: accept the server's current tool definitions for
// the allow rules pinned to them, after reviewing what changed (reins mcp get NAME).
type mcpRepinOptions struct {
	f    *cmdutil.Factory
	mcp  cmdutil.MCPFlags
	args []string
}

func newCmdMCPRepin(f *cmdutil.Factory, runF func(*mcpRepinOptions) error) *cobra.Command {
	opts := &mcpRepinOptions{f: f}
	mf := &opts.mcp
	cmd := &cobra.Command{
		Use:     "repin NAME",
		Example: "  reins mcp repin github",
		Short:   "Accept a server's changed tool definitions for the allow rules pinned to them",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.args = args
			if runF != nil {
				return runF(opts)
			}
			return mcpRepinRun(cmd.Context(), opts)
		},
	}
	mf.Register(cmd)
	return cmd
}

func mcpRepinRun(ctx context.Context, opts *mcpRepinOptions) error {
	f, mf := opts.f, &opts.mcp
	env, err := (&cmdutil.PermFlags{}).Load(f)
	if err != nil {
		return err
	}
	entries, err := client.Load(app.MCPLoadOptions(env, f.Getenv, mf.Options()))
	if err != nil {
		return err
	}
	entries = slices.DeleteFunc(entries, func(e client.Entry) bool { return e.Config.Name != opts.args[0] })
	if len(entries) == 0 {
		return cmdutil.UsageErrorf("no MCP server named %q", opts.args[0])
	}
	pins, err := client.OpenPins(app.PinsPath(env.Options))
	if err != nil {
		return err
	}
	co, err := client.OptionsFromEnv(f.Getenv)
	if err != nil {
		return &cmdutil.UsageError{Err: err}
	}
	co.Roots, co.Dir, co.Getenv, co.Pins = env.Context.WorkingDirs(), env.Context.OriginalCwd(), f.Getenv, pins
	m := client.Start(ctx, entries, co)
	defer m.Close()
	if st := m.Status()[0]; st.State != client.StateConnected {
		return fmt.Errorf("MCP server %s is %s: %s", st.Name, st.State, st.Reason)
	}
	n, err := m.Repin(opts.args[0])
	if err != nil {
		return err
	}
	fmt.Fprintf(f.Out, "Pinned the current definitions of %d tool(s) of %s\n", n, opts.args[0])
	return nil
}
