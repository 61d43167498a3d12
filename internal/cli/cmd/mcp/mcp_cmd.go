// Package mcp holds `reins mcp`: the servers' status, add/remove, approval and repinning of
// project servers, and `mcp serve`, Reins' guarded tools over MCP.
package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/reinsdev/reins/boundedfile"
	"github.com/reinsdev/reins/internal/app"
	"github.com/reinsdev/reins/internal/cli/cmdutil"
	"github.com/reinsdev/reins/mcp/client"
)

// NewCmdMCP builds `reins mcp` and its subcommands.
func NewCmdMCP(f *cmdutil.Factory) *cobra.Command {
	so := &mcpStatusOptions{f: f}
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Configure MCP servers and show their status; serve Reins' guarded tools over MCP",
		Long: `MCP servers come from the project's .mcp.json (started only once approved: see
enabledMcpjsonServers and enableAllProjectMcpServers, and never in an untrusted project),
your servers in ~/.reins.json (and Claude Code's ~/.claude.json), per-project entries there,
and --mcp-config. Managed settings' allowedMcpServers/deniedMcpServers restrict them all.

Without a subcommand, reins mcp starts every server and shows its status: connected with its
tool count, failed with the reason, needs approval, disabled or denied by policy.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return statusRun(cmd.Context(), so) },
	}
	so.register(cmd)
	cmd.AddCommand(newCmdMCPList(f, nil), newCmdMCPGet(f, nil), newCmdMCPAdd(f, nil), newCmdMCPAddJSON(f, nil), newCmdMCPRemove(f, nil),
		newCmdMCPApprove(f, nil), newCmdMCPRepin(f, nil), newMCPServeCmd(f, nil))
	return cmd
}

type mcpStatusOptions struct {
	f    *cmdutil.Factory
	mcp  cmdutil.MCPFlags
	json bool
	// only is the one server of `mcp get`; empty for all of them.
	only string
}

func (o *mcpStatusOptions) register(cmd *cobra.Command) {
	o.mcp.Register(cmd)
	cmd.Flags().BoolVar(&o.json, "json", false, "print JSON")
}

func newCmdMCPList(f *cmdutil.Factory, runF func(*mcpStatusOptions) error) *cobra.Command {
	o := &mcpStatusOptions{f: f}
	cmd := &cobra.Command{
		Use:     "list",
		Example: "  reins mcp list\n  reins mcp list --json",
		Short:   "List the configured MCP servers and check that they start",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(o)
			}
			return statusRun(cmd.Context(), o)
		},
	}
	o.register(cmd)
	return cmd
}

func newCmdMCPGet(f *cmdutil.Factory, runF func(*mcpStatusOptions) error) *cobra.Command {
	o := &mcpStatusOptions{f: f}
	cmd := &cobra.Command{
		Use:     "get NAME",
		Example: "  reins mcp get github",
		Short:   "Show one server: its configuration, status, tools and pinned definitions",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.only = args[0]
			if runF != nil {
				return runF(o)
			}
			return statusRun(cmd.Context(), o)
		},
	}
	o.register(cmd)
	return cmd
}

// mcpServerReport is one server in `reins mcp` output.
type mcpServerReport struct {
	client.Status
	Config client.ServerConfig `json:"config"`
	Source string              `json:"source"`
	// Tools of the server (get only), with their pin state.
	ToolList []mcpToolReport `json:"toolList,omitempty"`
}

type mcpToolReport struct {
	Name     string   `json:"name"`
	ReadOnly bool     `json:"readOnly"`
	Pins     []string `json:"pins,omitempty"`
}

func statusRun(ctx context.Context, o *mcpStatusOptions) error {
	f, only := o.f, o.only
	pf := &cmdutil.PermFlags{}
	env, err := pf.Load(f)
	if err != nil {
		return err
	}
	mo := o.mcp.Options()
	if mo.Plugins, err = pluginServers(ctx, env, nil); err != nil {
		return err
	}
	entries, err := client.Load(app.MCPLoadOptions(env, f.Getenv, mo))
	if err != nil {
		return err
	}
	if only != "" {
		var keep []client.Entry
		for _, e := range entries {
			if e.Config.Name == only {
				keep = append(keep, e)
			}
		}
		if len(keep) == 0 {
			return cmdutil.UsageErrorf("no MCP server named %q (see reins mcp list)", only)
		}
		entries = keep
	}
	opts, err := client.OptionsFromEnv(f.Getenv)
	if err != nil {
		return &cmdutil.UsageError{Err: err}
	}
	pins, err := client.OpenPins(app.PinsPath(env.Options))
	if err != nil {
		return err
	}
	pins.ReadOnly = true
	opts.Roots, opts.Dir, opts.Getenv, opts.Pins = env.Context.WorkingDirs(), env.Context.OriginalCwd(), f.Getenv, pins
	m := client.Start(ctx, entries, opts)
	defer m.Close()

	var reports []mcpServerReport
	for i, st := range m.Status() {
		r := mcpServerReport{Status: st, Config: entries[i].Config, Source: entries[i].Config.Pos}
		if only != "" {
			for _, d := range m.Definitions(st.Name) {
				tr := mcpToolReport{Name: d.Name, ReadOnly: d.ReadOnly}
				for _, p := range pins.List() {
					if p.Tool != d.Name {
						continue
					}
					state := "matches"
					if p.Hash != d.Hash {
						state = fmt.Sprintf("CHANGED: the allow rule no longer applies (description was %q, now %q)", p.Description, d.Description)
					}
					tr.Pins = append(tr.Pins, fmt.Sprintf("pinned for %s: %s", p.Rule, state))
				}
				r.ToolList = append(r.ToolList, tr)
			}
		}
		reports = append(reports, r)
	}
	if o.json {
		return cmdutil.WriteJSON(f.Out, reports)
	}
	if len(reports) == 0 {
		fmt.Fprintln(f.Out, "No MCP servers configured. Add one with: reins mcp add NAME -- COMMAND [ARGS...]")
		return nil
	}
	if only != "" {
		printMCPServer(f.Out, reports[0])
		return nil
	}
	tw := tabwriter.NewWriter(f.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSCOPE\tTYPE\tSTATUS\tTOOLS\tDETAIL")
	for _, r := range reports {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", r.Name, r.Scope, r.Type, r.State, r.Tools, r.Reason)
	}
	return tw.Flush()
}

func printMCPServer(w io.Writer, r mcpServerReport) {
	c := r.Config
	fmt.Fprintf(w, "%s:\n  Scope: %s (%s)\n  Type: %s\n", r.Name, r.Scope, r.Source, r.Type)
	if c.TransportType() == client.TypeStdio {
		fmt.Fprintf(w, "  Command: %s\n", strings.Join(append([]string{c.Command}, c.Args...), " "))
		for _, k := range sortedKeys(c.Env) {
			fmt.Fprintf(w, "  Env: %s=%s\n", k, c.Env[k])
		}
	} else {
		fmt.Fprintf(w, "  URL: %s\n", c.URL)
		for _, k := range sortedKeys(c.Headers) {
			fmt.Fprintf(w, "  Header: %s: %s\n", k, c.Headers[k])
		}
	}
	fmt.Fprintf(w, "  Status: %s", r.State)
	if r.Reason != "" {
		fmt.Fprintf(w, " (%s)", r.Reason)
	}
	fmt.Fprintln(w)
	for _, s := range r.Skipped {
		fmt.Fprintf(w, "  Skipped: %s\n", s)
	}
	for _, s := range r.Renamed {
		fmt.Fprintf(w, "  Renamed: %s\n", s)
	}
	if len(r.ToolList) > 0 {
		fmt.Fprintf(w, "  Tools (%d):\n", len(r.ToolList))
	}
	for _, t := range r.ToolList {
		ro := ""
		if t.ReadOnly {
			ro = " (read-only)"
		}
		fmt.Fprintf(w, "    %s%s\n", t.Name, ro)
		for _, p := range t.Pins {
			fmt.Fprintf(w, "      %s\n", p)
		}
	}
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ---- add, add-json, remove ----

type mcpScopeOptions struct {
	scope string
}

// mcpWriteOptions are the options of add-json and remove.
type mcpWriteOptions struct {
	f     *cmdutil.Factory
	scope mcpScopeOptions
	args  []string
}

func (o *mcpScopeOptions) register(cmd *cobra.Command, def string) {
	cmd.Flags().StringVarP(&o.scope, "scope", "s", def, "where to write: local (you, this project: ~/.reins.json), project (.mcp.json, shared), user (you, every project: ~/.reins.json)")
}

type mcpAddOptions struct {
	f         *cmdutil.Factory
	scope     mcpScopeOptions
	transport string
	envs      []string
	headers   []string
	args      []string
}

func newCmdMCPAdd(f *cmdutil.Factory, runF func(*mcpAddOptions) error) *cobra.Command {
	opts := &mcpAddOptions{f: f}
	cmd := &cobra.Command{
		Use:   "add NAME -- COMMAND [ARGS...] | add --transport http|sse NAME URL",
		Short: "Add a server",
		Example: `  reins mcp add github -e GITHUB_TOKEN='${GITHUB_TOKEN}' -- npx -y @modelcontextprotocol/server-github
  reins mcp add --transport http --scope user docs https://example.com/mcp -H "Authorization: Bearer ${TOKEN}"`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.args = args
			if runF != nil {
				return runF(opts)
			}
			return mcpAddRun(cmd.Context(), opts)
		},
	}
	opts.scope.register(cmd, "local")
	cmd.Flags().StringVarP(&opts.transport, "transport", "t", "", "stdio (default), http or sse")
	cmd.Flags().StringArrayVarP(&opts.envs, "env", "e", nil, "an environment variable KEY=VALUE for a stdio server (repeatable)")
	cmd.Flags().StringArrayVarP(&opts.headers, "header", "H", nil, `an HTTP header "Name: value" (repeatable)`)
	return cmd
}

func mcpAddRun(ctx context.Context, opts *mcpAddOptions) error {
	f := opts.f
	c := map[string]any{}
	switch opts.transport {
	case "stdio", "":
		c["command"], c["args"] = opts.args[1], opts.args[2:]
		if opts.transport == "stdio" {
			c["type"] = "stdio"
		}
	case "http", "sse":
		if len(opts.args) != 2 {
			return cmdutil.UsageErrorf("an %s server takes NAME URL", opts.transport)
		}
		c["type"], c["url"] = opts.transport, opts.args[1]
	default:
		return cmdutil.UsageErrorf("unknown --transport %q (want stdio, http or sse)", opts.transport)
	}
	if len(opts.envs) > 0 {
		m, err := splitPairs(opts.envs, "=", "-e")
		if err != nil {
			return err
		}
		c["env"] = m
	}
	if len(opts.headers) > 0 {
		m, err := splitPairs(opts.headers, ":", "-H")
		if err != nil {
			return err
		}
		c["headers"] = m
	}
	raw, _ := json.Marshal(c)
	return writeMCPServer(f, opts.scope.scope, opts.args[0], raw)
}

func splitPairs(list []string, sep, flag string) (map[string]string, error) {
	out := map[string]string{}
	for _, s := range list {
		k, v, ok := strings.Cut(s, sep)
		if !ok || strings.TrimSpace(k) == "" {
			return nil, cmdutil.UsageErrorf("%s %q: want KEY%sVALUE", flag, s, sep)
		}
		out[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return out, nil
}

func newCmdMCPAddJSON(f *cmdutil.Factory, runF func(*mcpWriteOptions) error) *cobra.Command {
	opts := &mcpWriteOptions{f: f}
	cmd := &cobra.Command{
		Use:     "add-json NAME JSON",
		Short:   "Add a server from its JSON configuration",
		Example: `  reins mcp add-json weather '{"type":"stdio","command":"/path/to/weather","args":["--api-key","${KEY}"]}'`,
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.args = args
			if runF != nil {
				return runF(opts)
			}
			return mcpAddJSONRun(cmd.Context(), opts)
		},
	}
	opts.scope.register(cmd, "local")
	return cmd
}

func mcpAddJSONRun(ctx context.Context, opts *mcpWriteOptions) error {
	f := opts.f
	return writeMCPServer(f, opts.scope.scope, opts.args[0], json.RawMessage(opts.args[1]))
}

func newCmdMCPRemove(f *cmdutil.Factory, runF func(*mcpWriteOptions) error) *cobra.Command {
	opts := &mcpWriteOptions{f: f}
	cmd := &cobra.Command{
		Use:     "remove NAME",
		Example: "  reins mcp remove github --scope user",
		Short:   "Remove a server (from the one scope that has it, or from --scope)",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.args = args
			if runF != nil {
				return runF(opts)
			}
			return mcpRemoveRun(cmd.Context(), opts)
		},
	}
	opts.scope.register(cmd, "")
	return cmd
}

func mcpRemoveRun(ctx context.Context, opts *mcpWriteOptions) error {
	f := opts.f
	name := opts.args[0]
	scopes := []string{opts.scope.scope}
	if opts.scope.scope == "" {
		scopes = nil
		for _, s := range []string{"local", "project", "user"} {
			if ok, err := hasMCPServer(f, s, name); err != nil {
				return err
			} else if ok {
				scopes = append(scopes, s)
			}
		}
		switch len(scopes) {
		case 0:
			return cmdutil.UsageErrorf("no MCP server %q in any scope Reins writes (local, project, user)", name)
		case 1:
		default:
			return cmdutil.UsageErrorf("MCP server %q is in scopes %s: choose one with --scope", name, strings.Join(scopes, ", "))
		}
	}
	path, keys, err := mcpScopeTarget(f, scopes[0])
	if err != nil {
		return err
	}
	removed := false
	err = editJSONFile(path, func(doc map[string]any) error {
		servers := dig(doc, keys, false)
		if servers == nil {
			return nil
		}
		if _, ok := servers[name]; ok {
			delete(servers, name)
			removed = true
		}
		return nil
	})
	if err != nil {
		return err
	}
	if !removed {
		return cmdutil.UsageErrorf("no MCP server %q in %s scope (%s)", name, scopes[0], path)
	}
	fmt.Fprintf(f.Out, "Removed MCP server %s from %s config (%s)\n", name, scopes[0], path)
	return nil
}

// mcpScopeTarget is the file and the object path of a scope's mcpServers.
func mcpScopeTarget(f *cmdutil.Factory, scope string) (path string, keys []string, err error) {
	cwd, err := cmdutil.WorkDir(f)
	if err != nil {
		return "", nil, err
	}
	home := f.Getenv("HOME")
	if home == "" && scope != "project" {
		return "", nil, errors.New("HOME is not set: there is no ~/.reins.json to write")
	}
	switch scope {
	case "local":
		return filepath.Join(home, ".reins.json"), []string{"projects", cwd, "mcpServers"}, nil
	case "user":
		return filepath.Join(home, ".reins.json"), []string{"mcpServers"}, nil
	case "project":
		return filepath.Join(cwd, ".mcp.json"), []string{"mcpServers"}, nil
	}
	return "", nil, cmdutil.UsageErrorf("unknown --scope %q (want local, project or user)", scope)
}

func hasMCPServer(f *cmdutil.Factory, scope, name string) (bool, error) {
	path, keys, err := mcpScopeTarget(f, scope)
	if err != nil {
		return false, err
	}
	doc, err := readJSONObject(path)
	if err != nil {
		return false, err
	}
	_, ok := dig(doc, keys, false)[name]
	return ok, nil
}

// writeMCPServer checks the configuration as `reins` would read it, then writes it.
func writeMCPServer(f *cmdutil.Factory, scope, name string, raw json.RawMessage) error {
	doc := fmt.Sprintf(`{"mcpServers": {%q: %s}}`, name, raw)
	if _, err := client.ParseConfigDocument("configuration", []byte(doc), client.ScopeUser); err != nil {
		return &cmdutil.UsageError{Err: err}
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return &cmdutil.UsageError{Err: fmt.Errorf("invalid JSON: %w", err)}
	}
	path, keys, err := mcpScopeTarget(f, scope)
	if err != nil {
		return err
	}
	err = editJSONFile(path, func(doc map[string]any) error {
		servers := dig(doc, keys, true)
		if _, ok := servers[name]; ok {
			return cmdutil.UsageErrorf("MCP server %q already exists in %s scope (%s): remove it first", name, scope, path)
		}
		servers[name] = v
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(f.Out, "Added MCP server %s to %s config (%s)\n", name, scope, path)
	if scope == "project" {
		fmt.Fprintln(f.Out, "Project servers start once approved (enabledMcpjsonServers in your settings) in a trusted project.")
	}
	return nil
}

// dig walks doc along keys, creating objects when create is set.
func dig(doc map[string]any, keys []string, create bool) map[string]any {
	cur := doc
	for _, k := range keys {
		next, ok := cur[k].(map[string]any)
		if !ok {
			if !create {
				return nil
			}
			next = map[string]any{}
			cur[k] = next
		}
		cur = next
	}
	return cur
}

// readJSONObject reads a config file `reins mcp` edits (~/.reins.json, .mcp.json) within the
// bound the MCP client reads the larger of them with; a FIFO or a device is refused.
func readJSONObject(path string) (map[string]any, error) {
	data, err := boundedfile.Read(context.Background(), path, boundedfile.Limits{MaxBytes: client.MaxUserFileBytes, Kind: "MCP config"})
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]any{}, nil
	}
	if err != nil {
		return nil, err
	}
	doc := map[string]any{}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return doc, nil
}

// editJSONFile changes a JSON object file atomically. Keys are written in sorted order.
func editJSONFile(path string, edit func(map[string]any) error) error {
	doc, err := readJSONObject(path)
	if err != nil {
		return err
	}
	if err := edit(doc); err != nil {
		return err
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
