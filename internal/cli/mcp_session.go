package cli

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/reinsdev/reins/internal/sdkproto"
	"github.com/reinsdev/reins/mcp/client"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/settings"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/tools"
	"github.com/reinsdev/reins/tools/toolsearch"
)

// mcpFlags are the MCP flags of the commands that run tools.
type mcpFlags struct {
	configs []string
	strict  bool
}

func (mf *mcpFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringArrayVar(&mf.configs, "mcp-config", nil, `MCP servers from a JSON file or inline JSON ({"mcpServers": {...}}; repeatable)`)
	fl.BoolVar(&mf.strict, "strict-mcp-config", false, "use only the servers of --mcp-config, ignoring every other MCP configuration")
}

// mcpLoadOptions says where the servers of a session in cwd are configured.
func mcpLoadOptions(f *Factory, sopts settings.Options, loaded *settings.Loaded, trusted bool, mf *mcpFlags) client.LoadOptions {
	lo := client.LoadOptions{
		Cwd:             sopts.Cwd,
		Home:            f.Getenv("HOME"),
		ClaudeConfigDir: f.Getenv("CLAUDE_CONFIG_DIR"),
		ProjectTrusted:  trusted,
		Getenv:          f.Getenv,
	}
	if mf != nil {
		lo.Configs, lo.Strict = mf.configs, mf.strict
	}
	if loaded != nil {
		for _, file := range loaded.Files {
			if file.Exists && !file.Inline && file.DuplicateOf == "" {
				lo.Settings = append(lo.Settings, client.SettingsFile{Path: file.Path, Source: file.Source})
			}
		}
	}
	return lo
}

// pinsPath is the pin file: in the user's config folder, whatever the rule's source.
// Without a config folder pins live in memory only ("").
func pinsPath(sopts settings.Options) string {
	if sopts.ConfigDir == "" {
		return ""
	}
	return filepath.Join(sopts.ConfigDir, "mcp-pins.json")
}

// mcpSession is the MCP servers of one run.
type mcpSession struct {
	m *client.Manager
}

// startMCP loads the configuration and starts the approved servers in parallel. A server that
// fails is reported on standard error and left out; a configuration that cannot be read stops
// the run (file:line:col).
func startMCP(ctx context.Context, f *Factory, env *permEnv, pc *permission.Context, mf *mcpFlags, elicitor client.Elicitor) (*mcpSession, error) {
	entries, err := client.Load(mcpLoadOptions(f, env.opts, env.loaded, env.trusted, mf))
	if err != nil {
		return nil, err
	}
	opts, err := client.OptionsFromEnv(f.Getenv)
	if err != nil {
		return nil, &usageError{err}
	}
	pins, err := client.OpenPins(pinsPath(env.opts))
	if err != nil {
		return nil, err
	}
	opts.Roots = pc.WorkingDirs()
	opts.Dir = pc.OriginalCwd()
	opts.Getenv = f.Getenv
	opts.Pins = pins
	opts.Elicitor = elicitor
	m := client.Start(ctx, entries, opts)
	for _, st := range m.Status() {
		switch st.State {
		case client.StateConnected:
			for _, s := range st.Skipped {
				fmt.Fprintf(f.ErrOut, "reins: warning: MCP server %s: tool %s\n", st.Name, s)
			}
		case client.StateFailed, string(client.StateInvalid):
			fmt.Fprintf(f.ErrOut, "reins: warning: MCP server %s failed: %s\n", st.Name, st.Reason)
		case string(client.StateNeedsApproval):
			fmt.Fprintf(f.ErrOut, "reins: MCP server %s was not started: %s\n", st.Name, st.Reason)
		}
	}
	return &mcpSession{m: m}, nil
}

// Close stops every server. It may be called on a nil session.
func (s *mcpSession) Close() error {
	if s == nil {
		return nil
	}
	return s.m.Close()
}

// serverNames are the connected servers.
// statuses are the configured servers and their state, in Claude Code's words (connected,
// failed, pending for one that waits for approval, disabled), for system/init and mcp_status.
func (s *mcpSession) statuses() []sdkproto.MCPServer {
	out := []sdkproto.MCPServer{}
	if s == nil {
		return out
	}
	for _, st := range s.m.Status() {
		status := string(st.State)
		switch client.State(st.State) {
		case client.StateNeedsApproval:
			status = "pending"
		case client.StateDenied, client.StateDisabled, client.StateInvalid:
			status = "disabled"
		}
		out = append(out, sdkproto.MCPServer{Name: st.Name, Status: status})
	}
	return out
}

// extend adds the servers' tools to the pool (after the built-ins, sorted, without the tools
// deny rules remove) and, when their definitions would take more than ENABLE_TOOL_SEARCH's
// share of the context, ToolSearch with the deferral the agent uses. The pool's tools are
// replaced; the deferral is nil when nothing is deferred.
func (s *mcpSession) extend(f *Factory, pc *permission.Context, pool []tool.Tool) ([]tool.Tool, *tool.Deferral, error) {
	var mcpTools []tool.Tool
	if s != nil {
		mcpTools = s.m.Tools()
	}
	all := tools.Assemble(pc, pool, mcpTools, f.Getenv)
	percent, err := toolsearch.Threshold(f.Getenv("ENABLE_TOOL_SEARCH"))
	if err != nil {
		return nil, nil, &usageError{err}
	}
	if len(mcpTools) == 0 || !toolsearch.Decide(all, percent, toolsearch.DefaultContextTokens) {
		return all, nil, nil
	}
	d := tool.NewDeferral(true)
	search := toolsearch.New(all, d)
	return tools.Assemble(pc, append(pool, search), mcpTools, f.Getenv), d, nil
}

// isMCPToolName reports whether a tool name needs the MCP servers: an MCP tool or one of the
// resource tools.
func isMCPToolName(name string) bool {
	return permission.IsMCPName(name) || name == "ListMcpResourcesTool" || name == "ReadMcpResourceTool"
}
