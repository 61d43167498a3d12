package agent

import (
	"context"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/toolcall"
)

// Observer watches a run from inside, where the [Bus] cannot: it may give each run, model request
// and tool call a context of its own (telemetry puts its span there, and the trace context that
// hooks and the processes a call starts inherit), and it is told how each ended. Its methods are
// on the run's path and must return quickly; they must not keep the messages, requests or inputs
// they are shown past the call. A nil Observer observes nothing and costs nothing.
type Observer interface {
	// Run is called when a run starts, with its prompt; end is called once with its result.
	Run(ctx context.Context, prompt llm.Message) (_ context.Context, end func(*Result))
	// Request is called before each model request; end is called once with its outcome.
	Request(ctx context.Context, req *llm.Request) (_ context.Context, end func(*llm.Response, error))
	// Call is called before a tool call enters the pipeline; end is called once with its
	// outcome. c.Permissions is the context the call is decided in.
	Call(ctx context.Context, c toolcall.Call) (_ context.Context, end func(toolcall.Outcome))
}

func (a *Agent) observeRun(ctx context.Context, prompt llm.Message) (context.Context, func(*Result)) {
	if a.Observer == nil {
		return ctx, func(*Result) {}
	}
	return a.Observer.Run(ctx, prompt)
}

func (a *Agent) observeRequest(ctx context.Context, req *llm.Request) (context.Context, func(*llm.Response, error)) {
	if a.Observer == nil {
		return ctx, func(*llm.Response, error) {}
	}
	return a.Observer.Request(ctx, req)
}

func (x *executor) observeCall(ctx context.Context, c toolcall.Call) (context.Context, func(toolcall.Outcome)) {
	if x.observer == nil {
		return ctx, func(toolcall.Outcome) {}
	}
	return x.observer.Call(ctx, c)
}
