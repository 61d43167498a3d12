package app

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/reinsdev/reins/classifier"
	"github.com/reinsdev/reins/internal/app/provider"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/settings"
)

// NewClassifier is auto mode's classifier for a session on p. Its model is
// REINS_AUTO_MODE_MODEL, else the session's small model (the smallModel setting,
// REINS_SMALL_MODEL, ANTHROPIC_SMALL_FAST_MODEL, the provider's small model);
// REINS_AUTO_MODE_TIMEOUT_MS bounds one judgement.
func NewClassifier(p *provider.Provider, l *settings.Loaded, getenv func(string) string) *classifier.Classifier {
	return &classifier.Classifier{
		Provider: p.LLM,
		Model:    cmp.Or(getenv("REINS_AUTO_MODE_MODEL"), p.SmallModel(l, getenv)),
		Timeout:  time.Duration(envInt(getenv, "REINS_AUTO_MODE_TIMEOUT_MS")) * time.Millisecond,
	}
}

// engine is the session's one permission engine: the main agent and its sub-agents share it,
// so auto mode's classifier cache and denial limits span them.
func (a *App) engine() *permission.Engine {
	if a.Engine == nil {
		a.Engine = &permission.Engine{Classifier: NewClassifier(a.Provider, a.Settings.Loaded, a.opts.Getenv), PolicyVersion: a.Settings.PolicyVersion}
	}
	return a.Engine
}

// CheckEngine is the engine of `permissions check` in s: in auto mode it calls the model a
// session would, and the trace (tctx) says so; with no provider it says it could not, and the
// decision is the one auto mode takes without a classifier.
func CheckEngine(ctx, tctx context.Context, s *Settings, getenv func(string) string, rep Reporter) *permission.Engine {
	pc := s.Context
	if pc.Mode() != permission.ModeAuto && !(pc.Mode() == permission.ModePlan && pc.PrePlanMode() == permission.ModeAuto) {
		return &permission.Engine{PolicyVersion: s.PolicyVersion}
	}
	httpClient, retry := provider.StreamNet(getenv, rep.Note)
	p, err := provider.Resolve(ctx, provider.Options{Settings: s.Loaded, Getenv: getenv, HTTPClient: httpClient, Retry: retry,
		Trusted: s.Trusted, Dir: s.Context.OriginalCwd()})
	if err != nil {
		// The provider's long help is for a run, not a trace line.
		first, _, _ := strings.Cut(err.Error(), "\n")
		permission.Note(tctx, permission.Step{Name: "auto: classifier", Outcome: "unavailable", Detail: "could not call the model: " + first})
		return &permission.Engine{PolicyVersion: s.PolicyVersion}
	}
	c := NewClassifier(p, s.Loaded, getenv)
	permission.Note(tctx, permission.Step{Name: "auto: classifier", Outcome: "configured",
		Detail: fmt.Sprintf("a call no rule decides is judged by %s (%s), which this check calls", c.Model, p.Name)})
	return &permission.Engine{Classifier: c, PolicyVersion: s.PolicyVersion}
}
