package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/internal/app"
	"github.com/reinsdev/reins/internal/sdkproto"
)

// runSDK serves the Agent SDK's protocol on standard input and output until the caller closes
// its input: `reins --input-format stream-json --output-format stream-json`.
func runSDK(ctx context.Context, f *Factory, opts *agentOptions) error {
	in, launch, err := awaitInitialize(f, opts)
	if err != nil {
		return err
	}
	a, err := newSession(ctx, f, opts)
	if err != nil {
		return err
	}
	defer a.Close()

	srv := &sdkproto.Server{
		In: in, Out: f.Out, Log: f.ErrOut,
		Session: sdkproto.Session{Agent: a.Agent, Permissions: a.Permissions, Bus: a.Bus, History: a.Session.History, ID: a.Session.ID,
			Init: initInfo(f, a)},
		Options: sdkproto.Options{AwaitInitialize: opts.sdk.awaitInit, Partial: opts.sdk.partial,
			PromptStdio: opts.sdk.promptTool == promptToolStdio, HookEvents: opts.hooks.includeEvents},
		Handlers: sdkproto.Handlers{Checks: checks(f, a), Run: commandTurn(a, a.RunTurn), WrapAsker: a.WithHooks},
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
	defer printHookMessages(f, a.Bus)()
	// The SessionStart hooks run before the first turn, with the initialize request's
	// callbacks among them.
	srv.Handlers.StartSession = a.StartSession
	a.SetElicitor(sdkElicitor{srv})
	defer a.SetElicitor(nil)
	err = srv.Serve(ctx)
	a.EndSession(ctx)
	switch {
	case ctx.Err() != nil:
		return finishWith(outcomeInterrupted, fmt.Errorf("interrupted; resume with: reins -p --resume %s", a.Session.ID))
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
func awaitInitialize(f *Factory, opts *agentOptions) (io.Reader, launchInit, error) {
	if !opts.sdk.awaitInit {
		return f.In, launchInit{}, nil
	}
	pre, err := sdkproto.ReadInitialize(f.In)
	if err != nil {
		return nil, launchInit{}, fmt.Errorf("reading the initialize request: %w", err)
	}
	if len(pre.MCPServers) > 0 && pre.MCPServers[0] == '{' {
		// Not an object: the initialize request is refused as unreadable, and nothing starts.
		opts.mcp.configs = append(opts.mcp.configs, `{"mcpServers":`+string(pre.MCPServers)+`}`)
	}
	launch := launchInit{mcp: pre.MCPServers, plugins: pre.Plugins}
	if pre.Plugins != nil {
		pcs, err := sdkproto.ParsePlugins(pre.Plugins)
		if err != nil {
			launch.pluginsErr = err
		}
		for _, pc := range pcs {
			opts.initPlugins = append(opts.initPlugins, pc.Path)
		}
	}
	return pre.In, launch, nil
}

// sdkExit is the exit of an SDK session that reached the end of its input: the code `reins -p`
// has for its last turn (docs/cli.md, "Exit codes"). A turn the caller interrupted is not a
// failure: the session went on as asked.
func sdkExit(res *agent.Result, opts *agentOptions) error {
	switch {
	case res == nil:
		return nil
	case res.Subtype == agent.SubtypeMaxTurns:
		return finishWith(outcomeMaxTurns, fmt.Errorf("the last turn reached the maximum number of turns (%d)", opts.maxTurns))
	case res.Subtype == agent.SubtypeMaxBudget:
		return fmt.Errorf("reached the maximum budget ($%g)", opts.sdk.maxBudgetUSD)
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
