// Package sdk is the Agent SDK's mode (--input-format stream-json): one conversation of JSON
// lines on standard input and output, with the SDK's control requests (initialize, can_use_tool,
// MCP servers of the SDK, rewind_files), and system/init's report of the session.
package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/internal/app"
	"github.com/reinsdev/reins/internal/cli/cmd/agent/shared"
	"github.com/reinsdev/reins/internal/cli/cmdutil"
	"github.com/reinsdev/reins/internal/sdkproto"
)

// RunSDK serves the Agent SDK's protocol on standard input and output until the caller closes
// its input: `reins --input-format stream-json --output-format stream-json`.
func RunSDK(ctx context.Context, f *cmdutil.Factory, opts *shared.Options) error {
	in, launch, err := awaitInitialize(f, opts)
	if err != nil {
		return err
	}
	a, err := shared.NewSession(ctx, f, opts)
	if err != nil {
		return err
	}
	defer a.Close()

	srv := &sdkproto.Server{
		In: in, Out: f.Out, Log: f.ErrOut,
		Session: sdkproto.Session{Agent: a.Agent, Permissions: a.Permissions, Bus: a.Bus, History: a.Session.History, ID: a.Session.ID,
			Init: InitInfo(f, a)},
		Options: sdkproto.Options{AwaitInitialize: opts.SDK.AwaitInit, Partial: opts.SDK.Partial,
			PromptStdio: opts.SDK.PromptTool == shared.PromptToolStdio, HookEvents: opts.Hooks.IncludeEvents},
		Handlers: sdkproto.Handlers{Checks: shared.Checks(f, a), Run: shared.CommandTurn(a, a.RunTurn), WrapAsker: a.WithHooks},
	}
	if a.Structured != nil {
		srv.Handlers.Structured = a.Structured.Value
	}
	if a.Session.Checkpoints != nil {
		srv.Handlers.Checkpoints = sdkCheckpoints{a}
	}
	srv.Handlers.OnInitialize = func(req sdkproto.InitializeRequest) error { return initialize(ctx, a, srv, req, launch) }
	srv.Handlers.Agents = func() []sdkproto.AgentInfo { return agentInfos(a) }
	srv.Handlers.ResolveModel = func(name string) (string, error) {
		if name == "" {
			return a.Provider.Model, nil
		}
		return name, nil
	}
	srv.Handlers.Settings = func() (any, error) { return settingsView(a), nil }
	serveSDKServers(a, srv)

	// What hooks tell the person goes into the stream (system/informational) and, for what
	// the caller reads no stream yet (SessionStart's), to standard error.
	defer shared.PrintHookMessages(f, a.Bus)()
	// The SessionStart hooks run before the first turn, with the initialize request's
	// callbacks among them.
	srv.Handlers.StartSession = a.StartSession
	a.SetElicitor(sdkElicitor{srv})
	defer a.SetElicitor(nil)
	err = srv.Serve(ctx)
	a.EndSession(ctx)
	switch {
	case ctx.Err() != nil:
		return cmdutil.FinishWith(cmdutil.OutcomeInterrupted, fmt.Errorf("interrupted; resume with: reins -p --resume %s", a.Session.ID))
	case err != nil:
		return err
	}
	return sdkExit(srv.LastResult(), opts)
}

// launchInit is what --await-initialize read from the initialize request before the session
// was assembled: its MCP servers and plugins as sent (nil when none), and why its plugins
// could not be read (the request is refused with it).
type launchInit struct {
	mcp, plugins json.RawMessage
	pluginsErr   error
}

// awaitInitialize reads, under --await-initialize, the caller's lines up to its initialize
// request; the MCP servers it carries join the session as one more --mcp-config item, its
// plugins as more --plugin-dir folders. It returns the input the Server reads and what was
// read at launch.
func awaitInitialize(f *cmdutil.Factory, opts *shared.Options) (io.Reader, launchInit, error) {
	if !opts.SDK.AwaitInit {
		return f.In, launchInit{}, nil
	}
	pre, err := sdkproto.ReadInitialize(f.In)
	if err != nil {
		return nil, launchInit{}, fmt.Errorf("reading the initialize request: %w", err)
	}
	if len(pre.MCPServers) > 0 && pre.MCPServers[0] == '{' {
		// Not an object: the initialize request is refused as unreadable, and nothing starts.
		opts.MCP.Configs = append(opts.MCP.Configs, `{"mcpServers":`+string(pre.MCPServers)+`}`)
	}
	launch := launchInit{mcp: pre.MCPServers, plugins: pre.Plugins}
	if pre.Plugins != nil {
		pcs, err := sdkproto.ParsePlugins(pre.Plugins)
		if err != nil {
			launch.pluginsErr = err
		}
		for _, pc := range pcs {
			opts.InitPlugins = append(opts.InitPlugins, pc.Path)
		}
	}
	return pre.In, launch, nil
}

// sdkExit is the exit of an SDK session that reached the end of its input: the code `reins -p`
// has for its last turn (docs/cli.md, "Exit codes"). A turn the caller interrupted is not a
// failure: the session went on as asked.
func sdkExit(res *agent.Result, opts *shared.Options) error {
	switch {
	case res == nil:
		return nil
	case res.Subtype == agent.SubtypeMaxTurns:
		return cmdutil.FinishWith(cmdutil.OutcomeMaxTurns, fmt.Errorf("the last turn reached the maximum number of turns (%d)", opts.MaxTurns))
	case res.Subtype == agent.SubtypeMaxBudget:
		return fmt.Errorf("reached the maximum budget ($%g)", opts.SDK.MaxBudgetUSD)
	case res.IsError && res.Err != nil && !errors.Is(res.Err, context.Canceled):
		return fmt.Errorf("the last turn failed: %w", res.Err)
	}
	return nil
}

// settingsView answers get_settings: the effective permission settings of the live session and
// each settings file that was read.
func settingsView(a *app.App) map[string]any {
	pc := a.Permissions.Context()
	perms := map[string]any{"allow": []string{}, "deny": []string{}, "ask": []string{}, "defaultMode": string(pc.Mode())}
	for _, r := range pc.Rules() {
		key := r.Behavior.String()
		if list, ok := perms[key].([]string); ok {
			perms[key] = append(list, r.Value.String())
		}
	}
	var dirs []string
	for _, d := range pc.AdditionalDirs() {
		dirs = append(dirs, d.Path)
	}
	if len(dirs) > 0 {
		perms["additionalDirectories"] = dirs
	}
	sources := []map[string]any{}
	for _, file := range a.Settings.Loaded.Files {
		if !file.Exists || file.DuplicateOf != "" {
			continue
		}
		sources = append(sources, map[string]any{"source": file.Source.String(), "path": file.Path, "settings": file.Settings})
	}
	return map[string]any{
		"effective": map[string]any{"permissions": perms, "model": a.Provider.Model},
		"sources":   sources,
	}
}
