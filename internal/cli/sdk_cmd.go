package cli

import (
	"context"
	"fmt"

	"github.com/reinsdev/reins/internal/sdkproto"
)

// runSDK serves the Agent SDK's protocol on standard input and output until the caller closes
// its input: `reins --input-format stream-json --output-format stream-json`.
func runSDK(ctx context.Context, f *Factory, opts *agentOptions) error {
	s, err := setupRun(ctx, f, opts)
	if err != nil {
		return err
	}
	defer s.Close()

	srv := &sdkproto.Server{
		In: f.In, Out: f.Out, Log: f.ErrOut,
		Agent: s.agent, Permissions: s.perms, Bus: s.bus, History: s.history, SessionID: s.sessionID,
		Init: s.initInfo(f), Partial: opts.sdk.partial, PromptStdio: opts.sdk.promptTool == promptToolStdio,
		Checks: s.checks(f), Run: s.runTurn, WrapAsker: s.withHooks, HookEvents: opts.hooks.includeEvents,
	}
	if s.structured != nil {
		srv.Structured = s.structured.Value
	}
	srv.OnInitialize = func(req sdkproto.InitializeRequest) error { return s.initialize(ctx, srv, req) }
	srv.Agents = s.agentInfos
	srv.ResolveModel = func(name string) (string, error) {
		if name == "" {
			return s.choice.Model, nil
		}
		return name, nil
	}
	srv.Settings = func() (any, error) { return settingsView(s), nil }

	if !opts.hooks.includeEvents {
		defer printHookMessages(f, s.bus)()
	}
	s.agent.System = sessionStart(ctx, s.hooks, s.bus, s.perms.Context(), s.resumed, s.choice.Model, s.agent.System)
	s.elicit.set(sdkElicitor{srv})
	defer s.elicit.set(nil)
	err = srv.Serve(ctx)
	sessionEnd(ctx, s.hooks, s.bus, s.perms)
	switch {
	case ctx.Err() != nil:
		return finishWith(outcomeInterrupted, fmt.Errorf("interrupted; resume with: reins -p --resume %s", s.sessionID))
	case err != nil:
		return err
	}
	return nil
}

// settingsView answers get_settings: the effective permission settings of the live session and
// each settings file that was read.
func settingsView(s *runSetup) map[string]any {
	pc := s.perms.Context()
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
	for _, file := range s.env.loaded.Files {
		if !file.Exists || file.DuplicateOf != "" {
			continue
		}
		sources = append(sources, map[string]any{"source": file.Source.String(), "path": file.Path, "settings": file.Settings})
	}
	return map[string]any{
		"effective": map[string]any{"permissions": perms, "model": s.choice.Model},
		"sources":   sources,
	}
}
