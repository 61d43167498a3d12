package cli

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/reinsdev/reins/classifier"
	"github.com/reinsdev/reins/internal/app"
	"github.com/reinsdev/reins/permission"
)

// newClassifier is auto mode's classifier for a session on choice. Its model is
// REINS_AUTO_MODE_MODEL, else the session's small model (the smallModel setting,
// REINS_SMALL_MODEL, ANTHROPIC_SMALL_FAST_MODEL, the provider's small model);
// REINS_AUTO_MODE_TIMEOUT_MS bounds one judgement.
func newClassifier(f *Factory, env *permEnv, choice *app.Provider) *classifier.Classifier {
	return &classifier.Classifier{
		Provider: choice.LLM,
		Model:    cmp.Or(f.Getenv("REINS_AUTO_MODE_MODEL"), choice.SmallModel(env.loaded, f.Getenv)),
		Timeout:  time.Duration(envInt(f, "REINS_AUTO_MODE_TIMEOUT_MS")) * time.Millisecond,
	}
}

// engine is the session's one permission engine: the main agent and its sub-agents share it,
// so auto mode's classifier cache and denial limits span them.
func (s *runSetup) engine(f *Factory) *permission.Engine {
	if s.permEngine == nil {
		s.permEngine = &permission.Engine{Classifier: newClassifier(f, s.env, s.choice)}
	}
	return s.permEngine
}

// checkEngine is the engine of `permissions check`: in auto mode it calls the model the
// session would, and the trace says so; with no provider it says it could not, and the
// decision is the one auto mode takes without a classifier.
func checkEngine(ctx context.Context, f *Factory, env *permEnv, tctx context.Context) *permission.Engine {
	pc := env.pc
	if pc.Mode() != permission.ModeAuto && !(pc.Mode() == permission.ModePlan && pc.PrePlanMode() == permission.ModeAuto) {
		return &permission.Engine{}
	}
	httpClient, retry := streamNet(f)
	choice, err := app.ResolveProvider(ctx, app.ProviderOptions{Settings: env.loaded, Getenv: f.Getenv, HTTPClient: httpClient, Retry: retry})
	if err != nil {
		permission.Note(tctx, permission.Step{Name: "auto: classifier", Outcome: "unavailable",
			Detail: fmt.Sprintf("could not call the model: %v", firstLine(err.Error()))})
		return &permission.Engine{}
	}
	c := newClassifier(f, env, choice)
	permission.Note(tctx, permission.Step{Name: "auto: classifier", Outcome: "configured",
		Detail: fmt.Sprintf("a call no rule decides is judged by %s (%s), which this check calls", c.Model, choice.Name)})
	return &permission.Engine{Classifier: c}
}

// firstLine is s up to its first line break: the provider's long help is for a run, not a
// trace line.
func firstLine(s string) string {
	for i, r := range s {
		if r == '\n' {
			return s[:i]
		}
	}
	return s
}
