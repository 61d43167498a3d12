package agenttool

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/toolcall"
)

type inCallKey struct{}

// nestingObserver records, for each run, the tool call whose context it started in ("" for a
// top-level run): what telemetry needs to make a sub-agent's span its Agent call's child.
type nestingObserver struct {
	mu   sync.Mutex
	runs []string
}

func (o *nestingObserver) Run(ctx context.Context, _ llm.Message) (context.Context, func(*agent.Result)) {
	in, _ := ctx.Value(inCallKey{}).(string)
	o.mu.Lock()
	o.runs = append(o.runs, in)
	o.mu.Unlock()
	return ctx, func(*agent.Result) {}
}

func (o *nestingObserver) Request(ctx context.Context, _ *llm.Request) (context.Context, func(*llm.Response, error)) {
	return ctx, func(*llm.Response, error) {}
}

func (o *nestingObserver) Call(ctx context.Context, c toolcall.Call) (context.Context, func(toolcall.Outcome)) {
	return context.WithValue(ctx, inCallKey{}, c.Tool.Name()), func(toolcall.Outcome) {}
}

func TestSubAgentRunsUnderTheObserverInsideItsCall(t *testing.T) {
	obs := &nestingObserver{}
	h := newHarness(t, harnessOpts{observer: obs})
	gp := key(builtin("general-purpose"))
	h.router.script(parentKey,
		use("Agent", `{"description":"look","prompt":"Look around","subagent_type":"general-purpose"}`),
		say("done"))
	h.router.script(gp, say("looked"))
	if res := h.run(t.Context(), "go"); res.Subtype != agent.SubtypeSuccess {
		t.Fatalf("subtype %s: %v", res.Subtype, res.Err)
	}
	if want := []string{"", Name}; !slices.Equal(obs.runs, want) {
		t.Errorf("runs observed inside %q, want %q (the sub-agent's inside its Agent call)", obs.runs, want)
	}
}
