package hooks

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/reinsdev/reins/permission"
)

// Report is what every event's hooks produced for the person and the loop.
type Report struct {
	Runs []Run
	// Messages are for the person: systemMessage fields and non-blocking failures.
	Messages []string
	// Stop is set when a hook answered continue: false; StopReason is its stopReason.
	Stop       bool
	StopReason string
}

// collect does what every event does with a run: report failures and system messages and
// honour continue: false. It returns the parsed output of a successful run.
func (rep *Report) collect(run Run) *Output {
	rep.Runs = append(rep.Runs, run)
	switch run.Outcome {
	case OutcomeError, OutcomeTimeout:
		rep.Messages = append(rep.Messages, failure(run))
		return nil
	case OutcomeSuccess:
	default:
		return nil
	}
	o := run.Output
	if o == nil {
		return nil
	}
	if o.SystemMessage != "" {
		rep.Messages = append(rep.Messages, o.SystemMessage)
	}
	if o.stops() && !rep.Stop {
		rep.Stop, rep.StopReason = true, o.StopReason
	}
	return o
}

// refused reports a run that an event which decides takes as a block: exit 2, or an answer
// that is not valid hook JSON (which is also a warning for the person). It records the run.
func (rep *Report) refused(run Run) bool {
	switch {
	case run.Outcome == OutcomeBlocking:
	case run.BadOutput:
		rep.Messages = append(rep.Messages, failure(run))
	default:
		return false
	}
	rep.Runs = append(rep.Runs, run)
	return true
}

// ToolCall is a tool call as hooks see it.
type ToolCall struct {
	Name string
	ID   string
	// Input is the call's input as JSON, file paths already absolute.
	Input json.RawMessage
}

func (c ToolCall) fields() map[string]any {
	in := c.Input
	if len(in) == 0 {
		in = json.RawMessage("{}")
	}
	return map[string]any{"tool_name": c.Name, "tool_input": in, "tool_use_id": c.ID}
}

// PreToolUseResult is the aggregated answer of a call's PreToolUse hooks.
type PreToolUseResult struct {
	Report
	// Verdict goes to permission.Engine.AuthorizeWithHook.
	Verdict permission.HookVerdict
	// UpdatedInput replaces the call's input; the caller re-validates it and the engine decides
	// on it.
	UpdatedInput json.RawMessage
	// Context is additional context for the model.
	Context []string
}

var behaviorRank = map[permission.Behavior]int{permission.Passthrough: 0, permission.Allow: 1, permission.Ask: 2, permission.Deny: 3}

// PreToolUse runs the PreToolUse hooks matching the call. Answers aggregate deny > ask > allow;
// a hook that blocks (exit 2) denies with its standard error; continue: false denies and stops.
func (r *Runner) PreToolUse(ctx context.Context, c Common, call ToolCall) PreToolUseResult {
	var res PreToolUseResult
	var reasons, names []string
	decide := func(b permission.Behavior, reason string, h *Hook) {
		switch cur := res.Verdict.Behavior; {
		case behaviorRank[b] > behaviorRank[cur]:
			res.Verdict.Behavior, reasons, names = b, nil, nil
		case b != cur:
			return
		}
		if reason != "" {
			reasons = append(reasons, reason)
		}
		names = append(names, hookRef(h))
	}
	for _, run := range r.run(ctx, PreToolUse, call.Name, c, call.fields()) {
		if res.refused(run) {
			decide(permission.Deny, blockReason(run), run.Hook)
			continue
		}
		o := res.collect(run)
		if o == nil {
			continue
		}
		if o.stops() {
			decide(permission.Deny, firstNonEmpty(o.StopReason, "a PreToolUse hook stopped the agent"), run.Hook)
			continue
		}
		b, reason := permission.Passthrough, o.Reason
		switch o.Decision {
		case "approve":
			b = permission.Allow
		case "block":
			b = permission.Deny
		}
		if s := o.Specific; s != nil {
			switch s.PermissionDecision {
			case "allow":
				b = permission.Allow
			case "deny":
				b = permission.Deny
			case "ask":
				b = permission.Ask
			}
			reason = firstNonEmpty(s.PermissionDecisionReason, reason)
			if s.AdditionalContext != "" {
				res.Context = append(res.Context, forModel(s.AdditionalContext))
			}
			if len(s.UpdatedInput) > 0 && res.UpdatedInput == nil && b != permission.Deny {
				res.UpdatedInput = s.UpdatedInput
			}
		}
		if b != permission.Passthrough {
			decide(b, forModel(reason), run.Hook)
		}
	}
	res.Verdict.Reason = strings.Join(reasons, "; ")
	res.Verdict.Hooks = strings.Join(names, ", ")
	if res.Verdict.Behavior == permission.Deny {
		res.UpdatedInput = nil
	}
	return res
}

// PostToolUseResult is what a call's PostToolUse or PostToolUseFailure hooks said.
type PostToolUseResult struct {
	Report
	// Feedback is for the model: a blocking hook's standard error, a decision "block" reason.
	Feedback []string
	// Context is additional context for the model.
	Context []string
}

// PostToolUse runs the PostToolUse hooks after a call succeeded; response is the tool's result.
func (r *Runner) PostToolUse(ctx context.Context, c Common, call ToolCall, response any) PostToolUseResult {
	f := call.fields()
	f["tool_response"] = response
	return r.post(ctx, PostToolUse, c, call, f)
}

// PostToolUseFailure runs the PostToolUseFailure hooks after a call failed.
func (r *Runner) PostToolUseFailure(ctx context.Context, c Common, call ToolCall, errText string, interrupted bool) PostToolUseResult {
	f := call.fields()
	f["error"] = errText
	f["is_interrupt"] = interrupted
	return r.post(ctx, PostToolUseFailure, c, call, f)
}

func (r *Runner) post(ctx context.Context, ev Event, c Common, call ToolCall, fields map[string]any) PostToolUseResult {
	var res PostToolUseResult
	for _, run := range r.run(ctx, ev, call.Name, c, fields) {
		if run.Outcome == OutcomeBlocking {
			res.Runs = append(res.Runs, run)
			res.Feedback = append(res.Feedback, blockReason(run))
			continue
		}
		o := res.collect(run)
		if o == nil {
			continue
		}
		if o.Decision == "block" {
			res.Feedback = append(res.Feedback, forModel(firstNonEmpty(o.Reason, "blocked by hook "+run.Hook.Name())))
		}
		if o.Specific != nil && o.Specific.AdditionalContext != "" {
			res.Context = append(res.Context, forModel(o.Specific.AdditionalContext))
		}
	}
	return res
}

// PermissionDenied runs the PermissionDenied hooks after the engine denied a call. Retry says a
// hook told the model it may try again.
func (r *Runner) PermissionDenied(ctx context.Context, c Common, call ToolCall, reason string) (rep Report, retry bool) {
	f := call.fields()
	f["reason"] = reason
	for _, run := range r.run(ctx, PermissionDenied, call.Name, c, f) {
		if o := rep.collect(run); o != nil && o.Specific != nil && o.Specific.Retry {
			retry = true
		}
	}
	return rep, retry
}

// PromptResult is what UserPromptSubmit hooks said about a prompt.
type PromptResult struct {
	Report
	// Blocked stops the prompt from reaching the model; Reason is for the person.
	Blocked bool
	Reason  string
	// Context is added to the prompt for the model.
	Context []string
}

// UserPromptSubmit runs the UserPromptSubmit hooks before a prompt reaches the model.
func (r *Runner) UserPromptSubmit(ctx context.Context, c Common, prompt string) PromptResult {
	var res PromptResult
	for _, run := range r.run(ctx, UserPromptSubmit, "", c, map[string]any{"prompt": prompt}) {
		if res.refused(run) {
			res.Blocked, res.Reason = true, joinReason(res.Reason, blockReason(run))
			continue
		}
		o := res.collect(run)
		if run.Outcome == OutcomeSuccess && o == nil {
			if s := strings.TrimSpace(run.Stdout); s != "" {
				res.Context = append(res.Context, forModel(s))
			}
		}
		if o == nil {
			continue
		}
		if o.Decision == "block" {
			res.Blocked, res.Reason = true, joinReason(res.Reason, firstNonEmpty(o.Reason, "blocked by hook "+run.Hook.Name()))
		}
		if o.Specific != nil && o.Specific.AdditionalContext != "" {
			res.Context = append(res.Context, forModel(o.Specific.AdditionalContext))
		}
	}
	return res
}

// SessionStart runs the SessionStart hooks (source: startup, resume, clear or compact) and
// returns the context they add for the model: plain standard output or additionalContext.
func (r *Runner) SessionStart(ctx context.Context, c Common, source, model string) (rep Report, context []string) {
	for _, run := range r.run(ctx, SessionStart, source, c, map[string]any{"source": source, "model": model}) {
		if run.Outcome == OutcomeBlocking {
			// SessionStart cannot block; its standard error is for the person.
			rep.Runs = append(rep.Runs, run)
			rep.Messages = append(rep.Messages, failure(run))
			continue
		}
		o := rep.collect(run)
		switch {
		case run.Outcome != OutcomeSuccess:
		case o == nil:
			if s := strings.TrimSpace(run.Stdout); s != "" {
				context = append(context, forModel(s))
			}
		case o.Specific != nil && o.Specific.AdditionalContext != "":
			context = append(context, forModel(o.Specific.AdditionalContext))
		}
	}
	return rep, context
}

// StopResult is what Stop (or SubagentStop) hooks said when the model ended its turn.
type StopResult struct {
	Report
	// Block keeps the agent going with Reason as the next message to the model.
	Block  bool
	Reason string
}

// Stop runs the Stop hooks. active says the agent is already continuing because of a Stop
// hook, so that a hook can avoid blocking forever.
func (r *Runner) Stop(ctx context.Context, c Common, active bool) StopResult {
	return r.stop(ctx, Stop, c, active)
}

// SubagentStop runs the SubagentStop hooks when a sub-agent ends its turn (agent.Agent with
// SubAgent set calls it instead of Stop).
func (r *Runner) SubagentStop(ctx context.Context, c Common, active bool) StopResult {
	return r.stop(ctx, SubagentStop, c, active)
}

func (r *Runner) stop(ctx context.Context, ev Event, c Common, active bool) StopResult {
	var res StopResult
	for _, run := range r.run(ctx, ev, "", c, map[string]any{"stop_hook_active": active}) {
		if run.BadOutput && active {
			// Already kept going by a Stop hook: a hook whose answer stays malformed must
			// not keep the agent going without end. It is a warning.
			res.collect(run)
			continue
		}
		if res.refused(run) {
			res.Block, res.Reason = true, joinReason(res.Reason, blockReason(run))
			continue
		}
		if o := res.collect(run); o != nil && o.Decision == "block" {
			res.Block, res.Reason = true, joinReason(res.Reason, forModel(firstNonEmpty(o.Reason, "blocked by hook "+run.Hook.Name())))
		}
	}
	if res.Stop {
		// continue: false wins over a block: the agent stops.
		res.Block = false
	}
	return res
}

// SessionEnd runs the SessionEnd hooks; they cannot change anything.
func (r *Runner) SessionEnd(ctx context.Context, c Common, reason string) Report {
	return r.sideEffect(ctx, SessionEnd, reason, c, map[string]any{"reason": reason})
}

// Notification runs the Notification hooks (kind: permission_prompt, idle_prompt…).
func (r *Runner) Notification(ctx context.Context, c Common, kind, message string) Report {
	return r.sideEffect(ctx, Notification, kind, c, map[string]any{"notification_type": kind, "message": message})
}

// PreCompact runs the PreCompact hooks (trigger: manual or auto) before the agent asks the
// model for a summary; custom_instructions are /compact's.
func (r *Runner) PreCompact(ctx context.Context, c Common, trigger, instructions string) Report {
	return r.sideEffect(ctx, PreCompact, trigger, c, map[string]any{"trigger": trigger, "custom_instructions": instructions})
}

func (r *Runner) sideEffect(ctx context.Context, ev Event, value string, c Common, fields map[string]any) Report {
	var rep Report
	for _, run := range r.run(ctx, ev, value, c, fields) {
		if run.Outcome == OutcomeBlocking {
			rep.Runs = append(rep.Runs, run)
			rep.Messages = append(rep.Messages, failure(run))
			continue
		}
		rep.collect(run)
	}
	return rep
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

func joinReason(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n" + b
}
