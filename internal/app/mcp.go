package app

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/reinsdev/reins/mcp/client"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/settings"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/tools"
	"github.com/reinsdev/reins/tools/toolsearch"
)

// MCPOptions are the MCP servers a session uses beyond the configured ones.
type MCPOptions struct {
	// Configs are --mcp-config values: JSON files or inline JSON ({"mcpServers": {...}}).
	Configs []string
	// Strict uses only the servers of Configs, ignoring every other MCP configuration.
	Strict bool
	// Approver, when set, is asked about the project servers that wait for approval, before
	// any server starts (the chat's dialog). Without it they stay off, as headless.
	Approver ProjectServerApprover
	// Plugins are the servers the session's plugins bring (PluginServers): project servers,
	// approved and trusted as the project's .mcp.json servers are. New sets them.
	Plugins []client.ServerConfig
}

// ProjectServerApprover puts the project servers of .mcp.json that nobody approved yet to a
// person. Only a trusted project's servers are put to it.
type ProjectServerApprover interface {
	// ApproveProjectServers returns the answers by server name: true approves, false refuses;
	// a server left out stays off for this session and nothing is recorded.
	ApproveProjectServers(ctx context.Context, pending []client.Entry) (map[string]bool, error)
	// RecordProjectServer keeps an answer for the project in cwd where the configuration is
	// read from (as `reins mcp approve` and `--reject` do).
	RecordProjectServer(cwd, name string, reject bool) error
}

// MCPLoadOptions says where the servers of a session in s's folder are configured.
func MCPLoadOptions(s *Settings, getenv func(string) string, o MCPOptions) client.LoadOptions {
	lo := client.LoadOptions{
		Cwd:             s.Options.Cwd,
		Home:            getenv("HOME"),
		ClaudeConfigDir: getenv("CLAUDE_CONFIG_DIR"),
		ProjectTrusted:  s.Trusted,
		Getenv:          getenv,
		Configs:         o.Configs,
		// --restricted reads no user, project or local configuration: only --mcp-config.
		Strict:  o.Strict || s.Restricted,
		Plugins: o.Plugins,
	}
	if s.Loaded != nil {
		for _, file := range s.Loaded.Files {
			if file.Exists && !file.Inline && file.DuplicateOf == "" {
				lo.Settings = append(lo.Settings, client.SettingsFile{Path: file.Path, Source: file.Source})
			}
		}
	}
	return lo
}

// PinsPath is the pin file: in the user's config folder, whatever the rule's source.
// Without a config folder pins live in memory only ("").
func PinsPath(sopts settings.Options) string {
	if sopts.ConfigDir == "" {
		return ""
	}
	return filepath.Join(sopts.ConfigDir, "mcp-pins.json")
}

// MCP is the MCP servers of one session. Its methods may be called on a nil *MCP (a session
// that started none).
type MCP struct {
	Manager *client.Manager
}

// StartMCP loads the configuration and starts the approved servers in parallel. A server that
// fails is reported and left out; a configuration that cannot be read stops the session
// (file:line:col). elicitor answers servers' requests for input; nil declines them.
func StartMCP(ctx context.Context, s *Settings, pc *permission.Context, getenv func(string) string, o MCPOptions, elicitor client.Elicitor, rep Reporter) (*MCP, error) {
	lo := MCPLoadOptions(s, getenv, o)
	entries, err := client.Load(lo)
	if err != nil {
		return nil, err
	}
	if o.Approver != nil && s.Trusted {
		if entries, err = askProjectServers(ctx, lo, entries, o.Approver); err != nil {
			return nil, err
		}
	}
	opts, err := client.OptionsFromEnv(getenv)
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	pins, err := client.OpenPins(PinsPath(s.Options))
	if err != nil {
		return nil, err
	}
	opts.Roots = pc.WorkingDirs()
	opts.Dir = pc.OriginalCwd()
	opts.Getenv = getenv
	opts.Environ = s.Environ
	opts.Pins = pins
	opts.Elicitor = elicitor
	m := client.Start(ctx, entries, opts)
	for _, st := range m.Status() {
		switch st.State {
		case client.StateConnected:
			for _, sk := range st.Skipped {
				rep.warn("MCP server %s: tool %s", st.Name, sk)
			}
			for _, rn := range st.Renamed {
				rep.warn("MCP server %s: tool %s", st.Name, rn)
			}
		case client.StateFailed, string(client.StateInvalid):
			rep.warn("MCP server %s failed: %s", st.Name, st.Reason)
		case string(client.StateNeedsApproval):
			rep.note("MCP server %s was not started: %s", st.Name, st.Reason)
		}
	}
	return &MCP{Manager: m}, nil
}

// askProjectServers puts the project servers nobody approved yet to the approver, records
// each answer, and reads the configuration again so that the servers start (or stay off) as
// recorded.
func askProjectServers(ctx context.Context, lo client.LoadOptions, entries []client.Entry, approver ProjectServerApprover) ([]client.Entry, error) {
	var pending []client.Entry
	for _, e := range entries {
		if e.Config.Scope == client.ScopeProject && e.State == client.StateNeedsApproval {
			pending = append(pending, e)
		}
	}
	if len(pending) == 0 {
		return entries, nil
	}
	answers, err := approver.ApproveProjectServers(ctx, pending)
	if err != nil {
		return nil, err
	}
	recorded := false
	for _, e := range pending {
		ok, answered := answers[e.Config.Name]
		if !answered {
			continue
		}
		if err := approver.RecordProjectServer(lo.Cwd, e.Config.Name, !ok); err != nil {
			return nil, fmt.Errorf("recording the answer for MCP server %s: %w", e.Config.Name, err)
		}
		recorded = true
	}
	if !recorded {
		return entries, nil
	}
	return client.Load(lo)
}

// Tools are the connected servers' tools.
func (s *MCP) Tools() []tool.Tool {
	if s == nil {
		return nil
	}
	return s.Manager.Tools()
}

// Status is the configured servers and their state.
func (s *MCP) Status() []client.Status {
	if s == nil {
		return nil
	}
	return s.Manager.Status()
}

// Prompts lists the connected servers' prompts.
func (s *MCP) Prompts(ctx context.Context) ([]client.Prompt, error) {
	if s == nil {
		return nil, nil
	}
	return s.Manager.Prompts(ctx)
}

// RunPrompt runs the prompt whose command is name with args, the text after the command:
// words fill the prompt's arguments in order, and the last argument takes the rest of the
// line. The messages' texts, joined, are what the person's turn sends.
func (s *MCP) RunPrompt(ctx context.Context, prompts []client.Prompt, name, args string) (string, error) {
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
	msgs, err := s.Manager.GetPrompt(ctx, p, values)
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

// Close stops every server.
func (s *MCP) Close() error {
	if s == nil {
		return nil
	}
	return s.Manager.Close()
}

// Extend adds the servers' tools to pool (after the built-ins, sorted, without the tools deny
// rules remove) and, when their definitions would take more than ENABLE_TOOL_SEARCH's share of
// the context, ToolSearch with the deferral the agent uses. The deferral is nil when nothing
// is deferred.
func (s *MCP) Extend(pc *permission.Context, pool []tool.Tool, getenv func(string) string) ([]tool.Tool, *tool.Deferral, error) {
	mcpTools := s.Tools()
	all := tools.Assemble(pc, pool, mcpTools, getenv)
	percent, err := toolsearch.Threshold(getenv("ENABLE_TOOL_SEARCH"))
	if err != nil {
		return nil, nil, &UsageError{Err: err}
	}
	if len(mcpTools) == 0 || !toolsearch.Decide(all, percent, toolsearch.DefaultContextTokens) {
		return all, nil, nil
	}
	d := tool.NewDeferral(true)
	search := toolsearch.New(all, d)
	return tools.Assemble(pc, append(pool, search), mcpTools, getenv), d, nil
}

// lateElicitor is the MCP servers' Elicitor, fixed when they start; the front end that answers
// (the SDK caller, the chat's form) connects to it later. Until then it declines, as headless.
type lateElicitor struct {
	mu sync.Mutex
	e  client.Elicitor
}

func (l *lateElicitor) set(e client.Elicitor) {
	l.mu.Lock()
	l.e = e
	l.mu.Unlock()
}

func (l *lateElicitor) Elicit(ctx context.Context, req client.ElicitRequest) (client.ElicitResult, error) {
	l.mu.Lock()
	e := l.e
	l.mu.Unlock()
	if e == nil {
		return client.ElicitResult{}, client.ErrNoElicitor
	}
	return e.Elicit(ctx, req)
}

// ReconnectMCP starts the server name again (/mcp reconnect) and makes the pool again, as
// AddSDKServers does, so that the tools of a server that had failed join the session, and
// those it no longer offers leave it. It runs between turns: the agent's tools and system
// prompt change.
func (a *App) ReconnectMCP(ctx context.Context, name string) error {
	if a.Ext.MCP == nil {
		return fmt.Errorf("no MCP server %q", name)
	}
	_, rerr := a.Ext.MCP.Manager.Reconnect(ctx, name)
	return errors.Join(rerr, a.remakeMCPTools(ctx))
}

// SetMCPEnabled turns the server name off for the rest of the session, or on again (/mcp),
// and makes the pool again: its tools leave the session, or join it. Nothing is written to the
// settings. It runs between turns, as ReconnectMCP does.
func (a *App) SetMCPEnabled(ctx context.Context, name string, on bool) error {
	if a.Ext.MCP == nil {
		return fmt.Errorf("no MCP server %q", name)
	}
	var err error
	if on {
		_, err = a.Ext.MCP.Manager.Enable(ctx, name)
	} else {
		err = a.Ext.MCP.Manager.Disable(name)
	}
	return errors.Join(err, a.remakeMCPTools(ctx))
}

// remakeMCPTools makes the pool again with the MCP tools as they are now, and gives the agent
// its tools and system prompt.
func (a *App) remakeMCPTools(ctx context.Context) error {
	deferral, err := a.extendPool(a.Permissions.Context())
	if err != nil {
		return err
	}
	system, err := SystemPrompt(ctx, deferral.Sent(a.Pool.Tools), a.Prompt)
	if err != nil {
		return err
	}
	a.Agent.Tools, a.Agent.Deferral, a.Agent.System = a.Pool.Tools, deferral, system
	return nil
}
