package permission

import (
	"context"
	"fmt"
)

// HookVerdict is what the PreToolUse hooks of one call answered, already aggregated
// (deny > ask > allow). It is an input to the pipeline, never a decision of its own: the engine
// ranks it against the rules in [Engine.AuthorizeWithHook].
type HookVerdict struct {
	// Behavior is Passthrough when no hook decided.
	Behavior Behavior
	// Reason is the hooks' explanation (permissionDecisionReason, or a blocking hook's stderr).
	Reason string
	// Hooks names the hooks that decided, for the trace.
	Hooks string
}

// AuthorizeWithHook is [Engine.AuthorizeCall] for a call whose PreToolUse hooks answered hv.
func (e *Engine) AuthorizeWithHook(ctx context.Context, pc *Context, t Checker, input any, hv HookVerdict, asker Asker) (Decision, error) {
	return e.AuthorizeCall(ctx, pc, Call{Tool: t, Input: input, Hook: &hv, Asker: asker})
}

// withHook ranks the PreToolUse hooks' verdict against the rules:
//
//   - deny denies, with the hooks' reason; no rule is consulted.
//   - allow skips the prompt and the mode, but not the rule-based steps ([Engine.RuleBased]):
//     a deny rule still denies, and an ask rule, a safety check or a tool that needs a person
//     still asks (and a headless run still denies that ask).
//   - ask asks with the hooks' reason, after the deny rules were consulted: a rule or check
//     that denies wins. Claude Code 2.1.88 asks without consulting them.
//
// ok is false when no hook decided: the normal pipeline runs.
func (e *Engine) withHook(ctx context.Context, pc *Context, c Call) (d Decision, ok bool, err error) {
	t, input, hv := c.Tool, c.Input, *c.Hook
	name := t.Name()
	switch hv.Behavior {
	case Deny:
		Note(ctx, Step{Name: "0 PreToolUse hook", Outcome: "deny", Detail: hookDetail(hv)})
		return Decision{Behavior: Deny, Message: hookDeniedMessage(name, hv.Reason), Reason: &Reason{Type: ReasonHook, Detail: hookDetail(hv), Hook: hv.Hooks}}, true, nil
	case Allow:
		Note(ctx, Step{Name: "0 PreToolUse hook", Outcome: "allow", Detail: hookDetail(hv) + "; the rule-based steps still run"})
		d := e.RuleBased(ctx, pc, t, input)
		switch d.Behavior {
		case Passthrough:
			Note(ctx, Step{Name: "0 hook allow", Outcome: "allow", Detail: "no rule or check objects"})
			return Decision{Behavior: Allow, Reason: &Reason{Type: ReasonHook, Detail: hookDetail(hv), Hook: hv.Hooks}}, true, nil
		case Deny:
			Note(ctx, Step{Name: "0 hook allow", Outcome: "deny", Detail: "a rule or check denies: " + reasonDetail(d)})
			return d, true, nil
		}
		Note(ctx, Step{Name: "0 hook allow", Outcome: "ask", Detail: "a rule or check asks: " + reasonDetail(d)})
		d, err := e.post(ctx, pc, t, input, d)
		if err != nil || d.Behavior != Ask {
			return d, true, err
		}
		d, err = e.settle(ctx, pc, c, d)
		return d, true, err
	case Ask:
		Note(ctx, Step{Name: "0 PreToolUse hook", Outcome: "ask", Detail: hookDetail(hv) + "; deny rules are consulted first"})
		if d := e.RuleBased(ctx, pc, t, input); d.Behavior == Deny {
			Note(ctx, Step{Name: "0 hook ask", Outcome: "deny", Detail: "a rule or check denies: " + reasonDetail(d)})
			return d, true, nil
		}
		msg := hv.Reason
		if msg == "" {
			msg = RequestMessage(name)
		}
		d := Decision{Behavior: Ask, Message: msg, Reason: &Reason{Type: ReasonHook, Detail: hookDetail(hv), Hook: hv.Hooks}}
		// The hook asked for a person: neither a mode nor the classifier may answer for one.
		switch {
		case pc.mode == ModeDontAsk:
			Note(ctx, Step{Name: "post dontAsk", Outcome: "deny"})
			return Decision{Behavior: Deny, Message: dontAskMessage(name), Reason: d.Reason}, true, nil
		case pc.avoidPrompts:
			Note(ctx, Step{Name: "post prompt-less context", Outcome: "deny"})
			return Decision{Behavior: Deny, Message: autoRejectMessage(name), Reason: d.Reason}, true, nil
		}
		d, err := e.settle(ctx, pc, c, d)
		return d, true, err
	}
	Note(ctx, Step{Name: "0 PreToolUse hook", Outcome: "no decision", Detail: hv.Hooks})
	return Decision{}, false, nil
}

func hookDetail(hv HookVerdict) string {
	switch {
	case hv.Hooks == "":
		return hv.Reason
	case hv.Reason == "":
		return hv.Hooks
	}
	return hv.Hooks + ": " + hv.Reason
}

// hookDeniedMessage is what the model reads when a PreToolUse hook blocked its call.
func hookDeniedMessage(tool, reason string) string {
	if reason == "" {
		return fmt.Sprintf("A PreToolUse hook denied this use of %s.", tool)
	}
	return fmt.Sprintf("A PreToolUse hook denied this use of %s: %s", tool, reason)
}
