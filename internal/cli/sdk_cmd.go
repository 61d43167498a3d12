package cli

import (
	"context"
	"fmt"

	"github.com/reinsdev/reins/internal/app"
	"github.com/reinsdev/reins/internal/sdkproto"
)

// runSDK serves the Agent SDK's protocol on standard input and output until the caller closes
// its input: `reins --input-format stream-json --output-format stream-json`.
func runSDK(ctx context.Context, f *Factory, opts *agentOptions) error {
	a, err := newSession(ctx, f, opts)
	if err != nil {
		return err
	}
	defer a.Close()

	srv := &sdkproto.Server{
		In: f.In, Out: f.Out, Log: f.ErrOut,
		Agent: a.Agent, Permissions: a.Permissions, Bus: a.Bus, History: a.History, SessionID: a.SessionID,
		Init: initInfo(f, a), Partial: opts.sdk.partial, PromptStdio: opts.sdk.promptTool == promptToolStdio,
		Checks: checks(f, a), Run: a.RunTurn, WrapAsker: a.WithHooks, HookEvents: opts.hooks.includeEvents,
	}
	if a.Structured != nil {
		srv.Structured = a.Structured.Value
	}
	srv.OnInitialize = func(req sdkproto.InitializeRequest) error { return initialize(ctx, a, srv, req) }
	srv.Agents = func() []sdkproto.AgentInfo { return agentInfos(a) }
	srv.ResolveModel = func(name string) (string, error) {
		if name == "" {
			return a.Provider.Model, nil
		}
		return name, nil
	}
	srv.Settings = func() (any, error) { return settingsView(a), nil }
	serveSDKServers(a, srv)

	if !opts.hooks.includeEvents {
		defer printHookMessages(f, a.Bus)()
	}
	a.StartSession(ctx)
	a.SetElicitor(sdkElicitor{srv})
	defer a.SetElicitor(nil)
	err = srv.Serve(ctx)
	a.EndSession(ctx)
	switch {
	case ctx.Err() != nil:
		return finishWith(outcomeInterrupted, fmt.Errorf("interrupted; resume with: reins -p --resume %s", a.SessionID))
	case err != nil:
		return err
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
