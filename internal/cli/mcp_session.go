package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

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
	// approve, set by the interactive mode, asks the person about the project servers that
	// wait for approval, before any server starts.
	approve projectServerApprover
}

// projectServerApprover asks about project servers waiting for approval. It returns true to
// approve and false to refuse, by server name; a server it leaves out stays off for this
// session and nothing is recorded.
type projectServerApprover func(ctx context.Context, pending []client.Entry) (map[string]bool, error)

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
	lo := mcpLoadOptions(f, env.opts, env.loaded, env.trusted, mf)
	entries, err := client.Load(lo)
	if err != nil {
		return nil, err
	}
	if mf != nil && mf.approve != nil && env.trusted {
		if entries, err = askProjectServers(ctx, f, lo, entries, mf.approve); err != nil {
			return nil, err
		}
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
				f.warn("MCP server %s: tool %s", st.Name, s)
			}
			for _, s := range st.Renamed {
				f.warn("MCP server %s: tool %s", st.Name, s)
			}
		case client.StateFailed, string(client.StateInvalid):
			f.warn("MCP server %s failed: %s", st.Name, st.Reason)
		case string(client.StateNeedsApproval):
			fmt.Fprintf(f.ErrOut, "reins: MCP server %s was not started: %s\n", st.Name, st.Reason)
		}
	}
	return &mcpSession{m: m}, nil
}

// askProjectServers puts the project servers nobody approved yet to the person, records each
// answer as `reins mcp approve` / `--reject` does, and reads the configuration again so that
// the servers start (or stay off) as recorded. Only a trusted project's servers are asked
// about; the caller checks that.
func askProjectServers(ctx context.Context, f *Factory, lo client.LoadOptions, entries []client.Entry, approve projectServerApprover) ([]client.Entry, error) {
	var pending []client.Entry
	for _, e := range entries {
		if e.Config.Scope == client.ScopeProject && e.State == client.StateNeedsApproval {
			pending = append(pending, e)
		}
	}
	if len(pending) == 0 {
		return entries, nil
	}
	answers, err := approve(ctx, pending)
	if err != nil {
		return nil, err
	}
	recorded := false
	for _, e := range pending {
		ok, answered := answers[e.Config.Name]
		if !answered {
			continue
		}
		if _, err := recordProjectServerAnswer(f, lo.Cwd, e.Config.Name, !ok); err != nil {
			return nil, fmt.Errorf("recording the answer for MCP server %s: %w", e.Config.Name, err)
		}
		recorded = true
	}
	if !recorded {
		return entries, nil
	}
	return client.Load(lo)
}

// prompts lists the connected servers' prompts. It may be called on a nil session.
func (s *mcpSession) prompts(ctx context.Context) ([]client.Prompt, error) {
	if s == nil {
		return nil, nil
	}
	return s.m.Prompts(ctx)
}

// runPrompt runs the prompt whose command is name with args, the text after the command:
// words fill the prompt's arguments in order, and the last argument takes the rest of the
// line. The messages' texts, joined, are what the person's turn sends.
func (s *mcpSession) runPrompt(ctx context.Context, prompts []client.Prompt, name, args string) (string, error) {
	i := slices.IndexFunc(prompts, func(p client.Prompt) bool { return p.Command == name })
	if s == nil || i < 0 {
		return "", fmt.Errorf("no MCP prompt /%s", name)
	}
	p := prompts[i]
	words := strings.Fields(args)
	if len(words) > 0 && len(p.Args) == 0 {
		return "", fmt.Errorf("/%s takes no arguments", name)
	}
	values := map[string]string{}
	for j, a := range p.Args {
		if j >= len(words) {
			break
		}
		if j == len(p.Args)-1 {
			values[a.Name] = strings.Join(words[j:], " ")
			break
		}
		values[a.Name] = words[j]
	}
	msgs, err := s.m.GetPrompt(ctx, p, values)
	if err != nil {
		return "", err
	}
	var parts []string
	for _, m := range msgs {
		if strings.TrimSpace(m.Text) != "" {
			parts = append(parts, m.Text)
		}
	}
	return strings.Join(parts, "\n\n"), nil
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
