package app

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/reinsdev/reins/hooks"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/tools"
	"github.com/reinsdev/reins/tools/agenttool"
)

// Who answers a session's asks: the agent's Asker, which a front end sets (the chat's dialog,
// the SDK caller's can_use_tool, a permission-prompt tool), always behind the
// PermissionRequest hooks (WithHooks). Until one is set, and in a headless session, an ask no
// hook answers is denied with its own message, as the engine does without an asker.

// headlessAskers are the askers of a session no person answers: the main agent's and
// background sub-agents'. Both are nil when nothing can answer (no PermissionRequest hook and
// none can be added later): the engine denies.
func (a *App) headlessAskers() (asker, background permission.Asker) {
	if a.Ext.Hooks.Has(hooks.PermissionRequest) || a.opts.LateHooks {
		// Undecided, a background sub-agent's ask gets the asyncAgent denial.
		return a.WithHooks(nil), hookedAsker{a: a, background: true}
	}
	return nil, nil
}

// WithHooks puts a front end's asker (nil: headless) behind the PermissionRequest hooks,
// which run beside it (first answer wins).
func (a *App) WithHooks(front permission.Asker) permission.Asker {
	return hookedAsker{a: a, front: front}
}

// hookedAsker looks for PermissionRequest hooks at each ask, not once at New: an SDK caller
// registers its callbacks in initialize, after the asker is in place. Without such hooks it is
// the front end's asker, or the headless deny.
type hookedAsker struct {
	a     *App
	front permission.Asker
	// background leaves an ask no hook decided undecided (a background sub-agent's, which the
	// Agent tool denies with its own reason).
	background bool
}

func (h hookedAsker) Ask(ctx context.Context, req permission.AskRequest) (permission.Decision, error) {
	if !h.a.Ext.Hooks.Has(hooks.PermissionRequest) {
		if h.background {
			return permission.Decision{Behavior: permission.Ask}, nil
		}
		if h.front == nil {
			return headlessDeny(req), nil
		}
		return h.front.Ask(ctx, req)
	}
	return headlessHookAsker(h.a.Ext.Hooks, h.a.Permissions, h.front).Ask(ctx, req)
}

// headlessDeny denies an ask with its own message, as the engine does without an asker.
func headlessDeny(req permission.AskRequest) permission.Decision {
	d := req.Decision
	return permission.Decision{Behavior: permission.Deny, Message: d.Message, Reason: d.Reason, BlockedPath: d.BlockedPath}
}

// parentAsker answers a foreground sub-agent's asks with whatever answers the main agent's at
// that moment: a front end's asker is installed after New, and hooks wrap it.
type parentAsker struct{ a *App }

func (p parentAsker) Ask(ctx context.Context, req permission.AskRequest) (permission.Decision, error) {
	if p.a.Agent == nil || p.a.Agent.Asker == nil {
		return headlessDeny(req), nil
	}
	return p.a.Agent.Asker.Ask(ctx, req)
}

// agentConfig is the Agent tool's view of the session.
func (a *App) agentConfig(background permission.Asker) AgentConfig {
	sc := AgentConfig{Definitions: a.Ext.Agents, Provider: a.Provider.LLM, Model: a.Provider.Model, ResolveModel: a.Provider.ResolveModel,
		Permissions: a.Permissions, Bus: a.Bus, Prompt: a.Prompt, MaxTurns: a.opts.MaxTurns,
		Hooks: a.Ext.Hooks, Observer: a.Telemetry.Observer(), Asker: parentAsker{a}, BackgroundAsker: background, Engine: a.engine(),
		// Read when a sub-agent starts: a switch of session moves the folder.
		ResultsDir:     func() string { return a.Session.resultsDir },
		MaxConcurrency: envInt(a.opts.Getenv, "REINS_MAX_TOOL_USE_CONCURRENCY"), Audit: a.auditor()}
	if a.Session.Recorder != nil {
		// Without persistence sub-agents keep no transcript either. The session is the one
		// of the moment: a switch moves its sub-agents' transcripts too.
		sc.NewTranscript = func(agentID string) (agenttool.Transcript, string, error) {
			w, err := a.Session.Store.CreateSidechain(a.Session.Recorder, agentID, a.Cwd, a.Provider.Model)
			if err != nil {
				return nil, "", err
			}
			return w, w.Path, nil
		}
	}
	return sc
}

// promptEnv is what the system prompt says of the session's environment.
func promptEnv(cwd string, pc *permission.Context, appendText string) PromptEnv {
	var dirs []string
	for _, d := range pc.AdditionalDirs() {
		dirs = append(dirs, d.Path)
	}
	return PromptEnv{
		Cwd: cwd, Dirs: dirs, Platform: runtime.GOOS, Date: time.Now(), Git: IsGitRepo(cwd),
		Mode: pc.Mode(), Append: appendText,
	}
}

// selectTools keeps only the named tools of the pool (nil names: all of them), in the pool's
// order, which is part of the prompt's cache key.
func selectTools(all []tool.Tool, names []string) ([]tool.Tool, error) {
	if names == nil {
		return all, nil
	}
	keep := map[tool.Tool]bool{}
	for _, n := range names {
		i := slices.IndexFunc(all, func(t tool.Tool) bool { return t.Name() == n || slices.Contains(t.Spec().Aliases, n) })
		if i < 0 {
			return nil, &UsageError{Err: fmt.Errorf("--tools: unknown tool %q (available: %s)", n, strings.Join(tools.Names(all), ", "))}
		}
		keep[all[i]] = true
	}
	var out []tool.Tool
	for _, t := range all {
		if keep[t] {
			out = append(out, t)
		}
	}
	return out, nil
}

// joinNonEmpty joins the non-empty texts with a blank line.
func joinNonEmpty(texts ...string) string {
	var out []string
	for _, t := range texts {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return strings.Join(out, "\n\n")
}
