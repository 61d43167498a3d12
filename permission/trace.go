package permission

import (
	"context"
	"fmt"
	"sync"
)

// Trace records the pipeline steps a decision visited and every rule that matched on the way,
// so `reins permissions check` can explain a decision. Recording costs nothing when no trace is
// attached to the context.
type Trace struct {
	mu    sync.Mutex
	steps []Step
}

// Step is one entry of a trace.
type Step struct {
	// Name is the pipeline step ("1a tool-wide deny", "read check", "bash: subcommand", …).
	Name string `json:"step"`
	// Outcome is what the step concluded: "match", "no match", "allow", "ask", "deny", "skip"…
	Outcome string `json:"outcome"`
	Detail  string `json:"detail,omitempty"`
	Rule    *Rule  `json:"rule,omitempty"`
}

// Steps returns the recorded steps in order.
func (t *Trace) Steps() []Step {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Step(nil), t.steps...)
}

type traceKey struct{}

// WithTrace returns a context that records decisions into t.
func WithTrace(ctx context.Context, t *Trace) context.Context {
	return context.WithValue(ctx, traceKey{}, t)
}

// Tracing reports whether ctx carries a trace, so callers can skip building details.
func Tracing(ctx context.Context) bool {
	_, ok := ctx.Value(traceKey{}).(*Trace)
	return ok
}

// Note appends a step to the trace carried by ctx, if any.
func Note(ctx context.Context, s Step) {
	t, ok := ctx.Value(traceKey{}).(*Trace)
	if !ok {
		return
	}
	t.mu.Lock()
	t.steps = append(t.steps, s)
	t.mu.Unlock()
}

// Notef is Note with a formatted detail.
func Notef(ctx context.Context, name, outcome, format string, args ...any) {
	if !Tracing(ctx) {
		return
	}
	Note(ctx, Step{Name: name, Outcome: outcome, Detail: fmt.Sprintf(format, args...)})
}

// NoteRule records a rule that matched.
func NoteRule(ctx context.Context, name string, r *Rule, outcome string) {
	if !Tracing(ctx) {
		return
	}
	Note(ctx, Step{Name: name, Outcome: outcome, Rule: r, Detail: r.Describe()})
}
