package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/toolcall"
)

// DefaultMaxConcurrency is the number of concurrency-safe calls run at once when
// [Agent.MaxConcurrency] is zero.
const DefaultMaxConcurrency = 10

// Denial is a call the permission engine refused, as listed in the final result.
type Denial struct {
	ToolName  string          `json:"tool_name"`
	ToolUseID string          `json:"tool_use_id"`
	ToolInput json.RawMessage `json:"tool_input"`
}

// call is one tool_use block on its way to a result.
type call struct {
	use   llm.Block
	tool  tool.Tool // nil when no tool has the name
	input any       // decoded input; nil when decoding failed
	err   error     // decoding error (a *toolcall.CrashError when the decoder panicked)
	safe  bool      // may run in parallel with its neighbours

	result  llm.Block
	denied  bool
	output  any  // the tool's structured output, when it ran
	endTurn bool // it succeeded with a result that ends the turn
}

// turnOutcome is what executing one assistant message produced.
type turnOutcome struct {
	results []llm.Block
	denials []Denial
	outputs map[string]any
	// fatal is an error that ends the run (too many auto-mode denials, a failed asker).
	fatal error
	// stopped is set when a hook answered continue: false.
	stopped *HookStopError
	// endTurn is set when a call's result ends the turn (tool.Result.EndTurn).
	endTurn bool
}

// executor runs the tool calls of one run.
type executor struct {
	tools map[string]tool.Tool
	// pipeline takes each call from validation to result; its Engine, Asker and Hooks are the
	// run's.
	pipeline    toolcall.Pipeline
	perms       *Permissions
	cwd         func() string
	env         *tool.Env
	bus         *Bus
	observer    Observer
	concurrency int
	// stop is reset for every turn.
	stop     *hookStop
	deferral *tool.Deferral
	// resultsDir is Agent.ResultsDir.
	resultsDir string
}

func (x *executor) lookup(name string) tool.Tool {
	if t, ok := x.tools[name]; ok {
		return t
	}
	return x.tools[permission.NormalizeToolName(name)]
}

// execute answers every tool_use of an assistant message, in tool_use order.
func (x *executor) execute(ctx context.Context, uses []llm.Block) turnOutcome {
	x.stop = &hookStop{}
	calls := make([]*call, len(uses))
	for i, u := range uses {
		calls[i] = x.prepare(u)
	}

	var fatal error
	var fatalOnce sync.Once
	setFatal := func(err error) { fatalOnce.Do(func() { fatal = err }) }
	for start := 0; start < len(calls); {
		end := start + 1
		if calls[start].safe {
			for end < len(calls) && calls[end].safe {
				end++
			}
		}
		batch := calls[start:end]
		switch {
		case ctx.Err() != nil || fatal != nil:
			for _, c := range batch {
				c.result = errorResult(c.use.ID, CancelMessage)
			}
		case len(batch) == 1:
			x.run(ctx, batch[0], setFatal)
		default:
			x.runParallel(ctx, batch, setFatal)
		}
		start = end
	}

	out := turnOutcome{results: make([]llm.Block, len(calls)), fatal: fatal, stopped: x.stop.err}
	for i, c := range calls {
		out.results[i] = c.result
		out.endTurn = out.endTurn || c.endTurn
		if c.output != nil {
			if out.outputs == nil {
				out.outputs = map[string]any{}
			}
			out.outputs[c.use.ID] = c.output
		}
		if c.denied {
			out.denials = append(out.denials, Denial{ToolName: c.use.Name, ToolUseID: c.use.ID, ToolInput: c.use.Input})
		}
	}
	return out
}

// prepare looks the tool up and decodes the input. A tool whose decoding panics gets the
// panic as its result and runs alone.
func (x *executor) prepare(u llm.Block) (c *call) {
	c = &call{use: u, tool: x.lookup(u.Name)}
	if c.tool == nil {
		return c
	}
	c.input, c.err = toolcall.Decode(c.tool, u.Input)
	if _, crashed := c.err.(*toolcall.CrashError); c.err != nil && !crashed && x.deferral.Deferred(c.tool) {
		// The model guessed the input of a tool whose schema it never saw.
		c.err = fmt.Errorf("%w\n\nThe schema of %s was not sent because the tool is deferred: load it first by calling ToolSearch with query \"select:%s\", then retry the call", c.err, c.tool.Name(), c.tool.Name())
	}
	c.safe = c.err == nil && c.tool.Is(tool.ConcurrencySafe, c.input)
	return c
}

// siblingError is the cancellation cause of a parallel batch whose Bash call failed.
type siblingError struct{ command string }

func (e *siblingError) Error() string { return "parallel tool call Bash(" + e.command + ") errored" }

// runParallel runs a batch of concurrency-safe calls, at most x.concurrency at once.
func (x *executor) runParallel(ctx context.Context, batch []*call, setFatal func(error)) {
	bctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	sem := make(chan struct{}, x.concurrency)
	var wg sync.WaitGroup
	notStarted := func(c *call) {
		if se, ok := errors.AsType[*siblingError](context.Cause(bctx)); ok && ctx.Err() == nil {
			c.result = errorResult(c.use.ID, siblingCancelMessage(se.command))
			return
		}
		c.result = errorResult(c.use.ID, CancelMessage)
	}
	for _, c := range batch {
		select {
		case sem <- struct{}{}:
		case <-bctx.Done():
			notStarted(c)
			continue
		}
		if bctx.Err() != nil {
			<-sem
			notStarted(c)
			continue
		}
		wg.Go(func() {
			defer func() { <-sem }()
			x.run(bctx, c, setFatal)
			if ctx.Err() != nil {
				return
			}
			if se, ok := errors.AsType[*siblingError](context.Cause(bctx)); ok {
				// Cancelled (or overtaken) by a failed sibling: the synthetic result replaces
				// whatever the call produced.
				c.result = errorResult(c.use.ID, siblingCancelMessage(se.command))
				return
			}
			if c.tool.Name() == "Bash" && c.result.IsError {
				cancel(&siblingError{command: bashCommand(c.use.Input)})
			}
		})
	}
	wg.Wait()
}

// run takes one call through the pipeline and stores its result.
func (x *executor) run(ctx context.Context, c *call, setFatal func(error)) {
	id := c.use.ID
	pc := x.permissions()
	switch {
	case c.tool == nil:
		c.result = errorResult(id, tool.UnknownToolMessage(c.use.Name))
		x.publishCall(c, pc, toolcall.Outcome{Stage: toolcall.Invalid})
		return
	case c.err != nil:
		c.result = errorResult(id, toolcall.UseErrorText(c.err))
		x.publishCall(c, pc, toolcall.Outcome{Stage: toolcall.Invalid})
		return
	}
	tc := toolcall.Call{Tool: c.tool, ID: id, Input: c.input, Raw: c.use.Input, Permissions: pc, Env: x.callEnv(id)}
	ctx, observed := x.observeCall(ctx, tc)
	out := x.pipeline.Run(withToolUse(ctx, c.use), tc)
	observed(out)
	defer func() { x.publishCall(c, pc, out) }()
	if out.Err != nil {
		setFatal(out.Err)
	}
	switch out.Stage {
	case toolcall.Done:
		c.result = toResultBlock(id, out.Result)
		c.output = out.Result.Output
		c.endTurn = out.Result.EndTurn && !c.result.IsError
	case toolcall.Denied:
		c.result = errorResult(id, out.Failure)
		c.denied = true
		d := out.Decision
		x.bus.Publish(Event{Type: EventPermissionDenied, Denied: &DeniedCall{ToolName: c.use.Name, ToolUseID: id, Message: d.Message, Reason: d.Reason, By: d.By}})
	default:
		c.result = errorResult(id, out.Failure)
	}
	for _, n := range out.Notes {
		c.result.Content = append(c.result.Content, llm.Text(n))
	}
}

// publishCall tells the bus what became of a call, once its result block is final.
func (x *executor) publishCall(c *call, pc *permission.Context, out toolcall.Outcome) {
	isError := c.result.IsError
	rec := &CallRecord{ToolName: c.use.Name, ToolUseID: c.use.ID, Input: c.use.Input,
		Mode: pc.Mode(), Stage: out.Stage, Decision: out.Decision, IsError: isError}
	if out.Decision.UpdatedInput != nil && out.Input != nil {
		if b, err := json.Marshal(out.Input); err == nil {
			rec.RanInput = b
		}
	}
	x.bus.Publish(Event{Type: EventToolCall, Call: rec})
}

type toolUseKey struct{}

// withToolUse tells an Asker which tool_use block it is asked about.
func withToolUse(ctx context.Context, use llm.Block) context.Context {
	return context.WithValue(ctx, toolUseKey{}, use)
}

// ToolUseOf returns the tool_use block whose permission is being decided, for an Asker that
// must name the call (the SDK's can_use_tool carries its id) or see its raw input.
func ToolUseOf(ctx context.Context) (llm.Block, bool) {
	u, ok := ctx.Value(toolUseKey{}).(llm.Block)
	return u, ok
}

// callEnv is the run's environment with progress reports labelled with the call's id.
func (x *executor) callEnv(id string) *tool.Env {
	env := &tool.Env{}
	if x.env != nil {
		*env = *x.env
	}
	env.ToolUseID = id
	if x.resultsDir != "" {
		env.CreateResultFile = x.createResultFile
	}
	env.Permissions = x.permissions
	env.UpdatePermissions = x.perms.Update
	env.AddTurnRules = x.perms.AddTurnRules
	bus := x.bus
	env.Progress = func(p tool.Progress) {
		bus.Publish(Event{Type: EventProgress, ToolUseID: id, Progress: p})
	}
	return env
}

// permissions is the current permission context, at the current directory.
func (x *executor) permissions() *permission.Context {
	pc := x.perms.Context()
	if x.cwd != nil {
		if d := x.cwd(); d != "" && d != pc.Cwd() {
			pc = pc.WithCwd(d)
		}
	}
	return pc
}
