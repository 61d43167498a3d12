package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/reinsdev/reins/hooks"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
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
	err   error     // decoding error
	// crashed marks a decoding error that is a panic, already formatted.
	crashed bool
	safe    bool // may run in parallel with its neighbours

	result llm.Block
	denied bool
	output any // the tool's structured output, when it ran
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
}

// executor runs the tool calls of one run.
type executor struct {
	tools       map[string]tool.Tool
	engine      *permission.Engine
	asker       permission.Asker
	perms       *Permissions
	cwd         func() string
	env         *tool.Env
	bus         *Bus
	concurrency int
	// hooks is nil when no hook is configured.
	hooks *hooks.Runner
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
	defer func() {
		if v := recover(); v != nil {
			c.input, c.safe = nil, false
			c.err = errors.New(crashMessage(c.tool.Name(), v))
			c.crashed = true
		}
	}()
	c.input, c.err = c.tool.Decode(u.Input)
	if c.err != nil && x.deferral.Deferred(c.tool) {
		// The model guessed the input of a tool whose schema it never saw.
		c.err = fmt.Errorf("%w\n\nThe schema of %s was not sent because the tool is deferred: load it first by calling ToolSearch with query \"select:%s\", then retry the call", c.err, c.tool.Name(), c.tool.Name())
	}
	c.safe = c.err == nil && c.tool.IsConcurrencySafe(c.input)
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
	if c.tool == nil {
		c.result = errorResult(id, tool.UnknownToolMessage(c.use.Name))
		return
	}
	if c.err != nil {
		msg := c.err.Error()
		if !c.crashed {
			msg = tool.UseError(msg)
		}
		c.result = errorResult(id, msg)
		return
	}
	if ctx.Err() != nil {
		c.result = errorResult(id, CancelMessage)
		return
	}
	t := c.tool
	env := x.callEnv(id)
	if msg, crashed := validate(ctx, t, c.input, env); msg != "" {
		if !crashed {
			msg = tool.UseError(msg)
		}
		c.result = errorResult(id, msg)
		return
	}

	pc := x.permissions()
	input := c.input
	var hc hooks.ToolCall
	var hookContext []string
	call := permission.Call{Tool: t, Asker: x.asker, Prepare: tool.PrepareSubstitute(t, env)}
	if x.hooks != nil {
		var hv permission.HookVerdict
		var failure string
		hv, input, hc, hookContext, failure = x.preToolUse(ctx, c, pc, env)
		if failure != "" {
			c.result = errorResult(id, failure)
			return
		}
		call.Hook = &hv
	}
	call.Input = input
	d, err := x.engine.AuthorizeCall(withToolUse(ctx, c.use), pc, call)
	switch {
	case err == nil && d.Behavior != permission.Allow:
		// Checked before the abort: a deny that also interrupts the turn (the SDK caller's
		// deny with interrupt) still tells the model why.
		msg := d.Message
		if x.hooks != nil && ctx.Err() == nil {
			msg = x.permissionDenied(ctx, pc, hc, msg)
		}
		c.result = errorResult(id, msg)
		c.denied = true
		x.bus.Publish(Event{Type: EventPermissionDenied, Denied: &DeniedCall{ToolName: c.use.Name, ToolUseID: id, Message: d.Message, Reason: d.Reason}})
		return
	case ctx.Err() != nil:
		c.result = errorResult(id, CancelMessage)
		return
	case err != nil:
		setFatal(err)
		c.result = errorResult(id, formatError(err))
		return
	}
	if err := x.perms.consume(d); err != nil {
		setFatal(err)
	}
	if d.UpdatedInput != nil {
		// What an answer substituted was prepared and decided by the engine; a tool's own
		// check may also rewrite its input, as JSON or as its input type.
		updated, err := tool.DecidedInput(t, d.UpdatedInput)
		if err != nil {
			c.result = errorResult(id, tool.UseError(err.Error()))
			return
		}
		input = updated
	}
	modified := d.UserModified && !t.InputsEquivalent(c.input, input)

	c.result = x.call(ctx, c, input, env, pc, hc, hookContext)
	if modified {
		c.result.Content = append(c.result.Content, llm.Text(modifiedNote(input)))
	}
}

// call runs an allowed call and its PostToolUse hooks and returns its result.
func (x *executor) call(ctx context.Context, c *call, input any, env *tool.Env, pc *permission.Context, hc hooks.ToolCall, hookContext []string) llm.Block {
	t, id := c.tool, c.use.ID
	callCtx, stop := callContext(ctx, t.InterruptBehavior())
	defer stop()
	res, panicked, err := invoke(callCtx, t, input, env)
	var result llm.Block
	var failure string
	switch {
	case panicked != nil:
		failure = crashMessage(t.Name(), panicked)
	case err != nil && callCtx.Err() != nil:
		failure = InterruptedMessage
	case err != nil:
		failure = formatError(err)
	default:
		// Structured output keeps the whole result, and so do hooks when its text is in
		// memory; the model gets what fits.
		sent := x.persistResult(t, id, res)
		result = toResultBlock(id, sent)
		c.output = res.Output
		if res.TextFile != nil {
			// The text is in a file the tool wrote, which persistResult moved or read back:
			// hooks get what the model got (the text, or the block naming the saved file),
			// not a result without its text whose file is gone.
			res = sent
		}
	}
	if failure != "" {
		result = errorResult(id, failure)
	}
	if x.hooks == nil || ctx.Err() != nil {
		return result
	}
	var r *tool.Result
	if failure == "" {
		r = &res
	}
	result = x.postToolUse(ctx, pc, hc, r, failure, failure == InterruptedMessage, result)
	return withHookText(result, "PreToolUse hook context", hookContext)
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

// modifiedNote tells the model that a person changed the call before it ran, and how.
func modifiedNote(input any) string {
	b, err := json.Marshal(input)
	if err != nil {
		return "The user modified the input of this call before approving it."
	}
	return "The user modified the input of this call before approving it; it ran with: " + string(b)
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

// callContext is the context a call runs under. A call whose tool blocks interrupts keeps
// running when the run is interrupted by a new message, and stops on any other cancellation.
func callContext(ctx context.Context, b tool.InterruptBehavior) (context.Context, func()) {
	if b != tool.Block {
		return context.WithCancel(ctx)
	}
	detached, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stopAfter := context.AfterFunc(ctx, func() {
		if !errors.Is(context.Cause(ctx), ErrInterrupt) {
			cancel()
		}
	})
	return detached, func() { stopAfter(); cancel() }
}

// validate runs the tool's own input checks. It returns the failure message, and whether it
// comes from a panic (then it is already formatted).
func validate(ctx context.Context, t tool.Tool, input any, env *tool.Env) (msg string, crashed bool) {
	defer func() {
		if v := recover(); v != nil {
			msg, crashed = crashMessage(t.Name(), v), true
		}
	}()
	if f := t.ValidateInput(ctx, input, env); f != nil {
		return formatMessage(f.Message), false
	}
	return "", false
}

// invoke calls the tool, turning a panic into a value.
func invoke(ctx context.Context, t tool.Tool, input any, env *tool.Env) (res tool.Result, panicked any, err error) {
	defer func() {
		if v := recover(); v != nil {
			panicked = v
		}
	}()
	res, err = t.Call(ctx, input, env)
	return res, nil, err
}
