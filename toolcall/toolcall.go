package toolcall

import (
	"context"
	"encoding/json"

	"github.com/reinsdev/reins/hooks"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
)

// Pipeline runs tool calls. Its zero value runs them headless (an ask is a deny), without
// hooks, with a zero engine (auto mode fails closed).
type Pipeline struct {
	Engine *permission.Engine
	// Asker answers asks: a person, an SDK caller, an MCP client, a parent agent; nil is headless.
	Asker permission.Asker
	// Hooks runs the configured hooks; nil when none are.
	Hooks *hooks.Runner
	// Notify receives what hooks had to tell the person; nil drops it.
	Notify func(msg string)
	// Stop is told of a hook's continue: false (the agent then ends its turn); nil ignores it.
	Stop func(ev hooks.Event, reason string)
	// Granted sees every allow before the call runs (a one-time approval is used up there);
	// its error is a failure of the run, and the call still runs.
	Granted func(permission.Decision) error
	// Finish turns the result of a call that returned into what the caller keeps (the agent
	// saves a text too large for the model to a file); PostToolUse hooks then see what the
	// model gets when the text was in a file. Nil keeps the result.
	Finish func(t tool.Tool, id string, res tool.Result) tool.Result
	// Audit records every decision before anything comes of it; nil records none.
	Audit Auditor
}

// Call is one call on its way through the pipeline.
type Call struct {
	Tool tool.Tool
	// ID is the tool_use id (or the front end's own call id).
	ID string
	// Input is the decoded input ([Decode]); Raw is the input as it was sent, which hooks see.
	Input any
	Raw   json.RawMessage
	// Permissions is the permission context the call is decided in.
	Permissions *permission.Context
	// Env is the environment the tool runs with.
	Env *tool.Env
	// Parent is the id of the Agent call whose sub-agent makes this call; "" for the main
	// agent's calls. The audit log names it.
	Parent string
}

// Stage says how far a call got.
type Stage int

const (
	// Cancelled: the run was cancelled before the call could start.
	Cancelled Stage = iota + 1
	// Invalid: the input (or a hook's substitute) failed the tool's checks.
	Invalid
	// Denied: the engine, a hook or the person refused the call.
	Denied
	// Aborted: the run failed while deciding, or the decision could not be recorded
	// ([Outcome.Err] says why).
	Aborted
	// Failed: the call ran and did not return (it panicked, failed with a Go error, or was
	// interrupted).
	Failed
	// Done: the call ran and returned a result, which may be an error result.
	Done
)

var stageNames = [...]string{Cancelled: "cancelled", Invalid: "invalid", Denied: "denied", Aborted: "aborted", Failed: "failed", Done: "done"}

// String names the stage as logs and the audit log write it.
func (s Stage) String() string {
	if s <= 0 || int(s) >= len(stageNames) {
		return "unknown"
	}
	return stageNames[s]
}

// Outcome is what running a call produced.
type Outcome struct {
	Stage Stage
	// Input is the input the call was decided on (and ran with): the model's, or what a hook
	// or an answer substituted.
	Input any
	// Decision is the engine's, once the call got that far.
	Decision permission.Decision
	// Failure is the text the model reads instead of a result, for every stage but Done.
	Failure string
	// Result is the tool's result (Done), after Finish.
	Result tool.Result
	// Notes are texts for the model added after the result: hooks' feedback and context, and
	// that a person modified the call.
	Notes []string
	// Err is a failure of the run, not of the call: the caller ends its run.
	Err error
}

// Run takes one call through the pipeline. A cancelled ctx stops the call where it is; an
// ErrInterrupt cause leaves a tool that blocks interrupts running (see [tool.Block]).
func (p *Pipeline) Run(ctx context.Context, c Call) Outcome {
	if ctx.Err() != nil {
		return Outcome{Stage: Cancelled, Input: c.Input, Failure: CancelMessage}
	}
	if msg := validate(ctx, c.Tool, c.Input, c.Env); msg != "" {
		return Outcome{Stage: Invalid, Input: c.Input, Failure: msg}
	}
	h := p.newHookCall(c)
	input, hv, failure := p.preToolUse(ctx, h, c)
	if failure != "" {
		return Outcome{Stage: Invalid, Input: c.Input, Failure: failure}
	}
	d, err := p.engine().AuthorizeCall(ctx, c.Permissions, permission.Call{Tool: c.Tool, Input: input, Hook: hv,
		Asker: p.Asker, Prepare: tool.PrepareSubstitute(c.Tool, c.Env)})
	if err == nil {
		if out, ok := p.audited(ctx, c, input, d); !ok {
			return out
		}
	}
	switch {
	case err == nil && d.Behavior != permission.Allow:
		// Checked before the abort: a deny that also interrupts the turn (the SDK caller's
		// deny with interrupt) still tells the model why.
		msg := d.Message
		if ctx.Err() == nil {
			msg = p.permissionDenied(ctx, h, msg)
		}
		return Outcome{Stage: Denied, Input: input, Decision: d, Failure: msg}
	case ctx.Err() != nil:
		return Outcome{Stage: Cancelled, Input: input, Decision: d, Failure: CancelMessage}
	case err != nil:
		return Outcome{Stage: Aborted, Input: input, Failure: FormatMessage(err.Error()), Err: err}
	}
	out := Outcome{Input: input, Decision: d}
	if p.Granted != nil {
		out.Err = p.Granted(d)
	}
	if d.UpdatedInput != nil {
		updated, err := tool.DecidedInput(c.Tool, d.UpdatedInput)
		if err != nil {
			out.Stage, out.Failure = Invalid, tool.UseError(err.Error())
			return out
		}
		out.Input = updated
	}
	p.call(ctx, c, h, &out)
	if d.UserModified && !c.Tool.InputsEquivalent(c.Input, out.Input) {
		out.Notes = append(out.Notes, modifiedNote(out.Input))
	}
	return out
}

func (p *Pipeline) engine() *permission.Engine {
	if p.Engine == nil {
		return &permission.Engine{}
	}
	return p.Engine
}

// call runs an allowed call and its PostToolUse hooks.
func (p *Pipeline) call(ctx context.Context, c Call, h *hookCall, out *Outcome) {
	t := c.Tool
	callCtx, stop := callContext(ctx, t.Spec().Interrupt)
	defer stop()
	if cp := capturerOf(ctx); cp != nil {
		done := cp.BeforeCall(ctx, c, out.Input)
		defer done()
	}
	res, panicked, err := invoke(callCtx, t, out.Input, c.Env)
	var response *tool.Result
	switch {
	case panicked != nil:
		out.Stage, out.Failure = Failed, CrashMessage(t.Name(), panicked)
	case err != nil && callCtx.Err() != nil:
		out.Stage, out.Failure = Failed, InterruptedMessage
	case err != nil:
		out.Stage, out.Failure = Failed, FormatMessage(err.Error())
	default:
		out.Stage, out.Result = Done, res
		recordSecretReads(ctx, c, res.Reads)
		if p.Finish != nil {
			out.Result = p.Finish(t, c.ID, res)
			if res.TextFile != nil {
				// The text was in a file the tool wrote, which Finish moved or read back:
				// hooks get what the model got, not a result whose file is gone.
				res = out.Result
			}
		}
		response = &res
	}
	if ctx.Err() != nil {
		return
	}
	if h != nil {
		out.Notes = append(out.Notes, p.postToolUse(ctx, h, response, out.Failure)...)
		out.Notes = append(out.Notes, h.preContext...)
	}
}

// recordSecretReads marks the session tainted for each file the result showed that is a secret
// file. Only a call that returned gets here: a denied or failed read taints nothing.
func recordSecretReads(ctx context.Context, c Call, reads []string) {
	pc := c.Permissions
	if pc == nil {
		return
	}
	for _, p := range reads {
		s, ok := pc.SecretFile(ctx, p)
		if !ok {
			continue
		}
		abs, err := pc.ResolvePath(p)
		if err != nil {
			abs = p
		}
		pc.Taint().Record(permission.SecretRead{Path: abs, Pattern: s.Pattern, Tool: c.Tool.Name(), CallID: c.ID})
	}
}

// validate runs the tool's own input checks. It returns the text for the model: the tool's
// failure marked as a use error, or a panic's crash message.
func validate(ctx context.Context, t tool.Tool, input any, env *tool.Env) (msg string) {
	defer func() {
		if v := recover(); v != nil {
			msg = CrashMessage(t.Name(), v)
		}
	}()
	if f := t.ValidateInput(ctx, input, env); f != nil {
		return tool.UseError(FormatMessage(f.Message))
	}
	return ""
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
