package app

import (
	"context"
	"strings"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/hooks"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/settings"
)

// newHookRunner builds the runner for the hooks that run in this session (the settings' and
// the plugins', already marked by PluginHooks); nil when none does,
// so a session without hooks pays nothing for them, unless always (a session whose front end
// may add hook callbacks later, the SDK's initialize).
func newHookRunner(s *Settings, plugin []settings.HookEntry, sessionID, transcriptPath string, bus *agent.Bus, always bool, groups hooks.GroupGuard, deps hookDeps) (*hooks.Runner, error) {
	var hs []hooks.Hook
	policy := HTTPHookPolicy(s.Loaded)
	for _, e := range append(s.Loaded.Hooks(s.Trusted), plugin...) {
		if e.Skipped != "" {
			continue
		}
		hs = append(hs, hookOf(e, deps, policy))
	}
	if len(hs) == 0 && !always {
		return nil, nil
	}
	r, err := hooks.NewRunner(hs)
	if err != nil {
		return nil, err
	}
	r.ProjectDir = s.Context.OriginalCwd()
	r.SessionID, r.TranscriptPath = sessionID, transcriptPath
	r.Observe = func(run hooks.Run) { bus.Publish(agent.Event{Type: agent.EventHook, Hook: &run}) }
	r.Groups = groups
	r.Env = s.Environ
	return r, nil
}

// headlessHookAsker lets PermissionRequest hooks answer the asks before they are denied (or,
// with next set, before next answers); updates they grant are applied like a person's.
func headlessHookAsker(r *hooks.Runner, perms *agent.Permissions, next permission.Asker) *hooks.Asker {
	return &hooks.Asker{
		Runner: r,
		Common: func() hooks.Common {
			pc := perms.Context()
			return hooks.Common{Cwd: pc.Cwd(), PermissionMode: pc.Mode()}
		},
		Apply: func(ctx context.Context, us []permission.Update) error { return perms.Update(ctx, us...) },
		Next:  next,
	}
}

// StartSession runs the SessionStart hooks ("resume" for a restored conversation) and adds
// their context to the agent's system prompt. A front end calls it once, when the session
// starts taking turns; Close then runs the SessionEnd hooks.
func (a *App) StartSession(ctx context.Context) {
	a.life.started = true
	if !a.Ext.Hooks.Has(hooks.SessionStart) {
		return
	}
	source := "startup"
	if a.Session.Resumed {
		source = "resume"
	}
	pc := a.Permissions.Context()
	rep, texts := a.Ext.Hooks.SessionStart(ctx, hooks.Common{Cwd: pc.Cwd(), PermissionMode: pc.Mode()}, source, a.Provider.Model)
	for _, m := range rep.Messages {
		a.Bus.Publish(agent.Event{Type: agent.EventHookMessage, Text: m})
	}
	if len(texts) > 0 {
		a.Agent.System = append(a.Agent.System, llm.SystemBlock{Text: "SessionStart hook additional context:\n" + strings.Join(texts, "\n")})
	}
}

// EndSession runs the SessionEnd hooks once, after a session that started (StartSession), also
// when it was interrupted: they run without the caller's cancellation. Their messages go to the
// bus, so a front end that still listens gets them. Close calls it when the front end did not.
func (a *App) EndSession(ctx context.Context) {
	if !a.life.started || a.life.ended {
		return
	}
	a.life.ended = true
	if !a.Ext.Hooks.Has(hooks.SessionEnd) {
		return
	}
	pc := a.Permissions.Context()
	rep := a.Ext.Hooks.SessionEnd(context.WithoutCancel(ctx), hooks.Common{Cwd: pc.Cwd(), PermissionMode: pc.Mode()}, "other")
	for _, m := range rep.Messages {
		a.Bus.Publish(agent.Event{Type: agent.EventHookMessage, Text: m})
	}
}
