package permission

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
)

// Call is one tool call as [Engine.AuthorizeCall] authorizes it.
type Call struct {
	Tool  Checker
	Input any
	// Hook is what the call's PreToolUse hooks answered, aggregated; nil when no hooks ran.
	Hook *HookVerdict
	// Asker answers asks; nil settles every ask as a deny (headless).
	Asker Asker
	// Prepare turns an input that an answer substituted — an SDK caller's or a hook's
	// updatedInput, a permission-prompt tool's answer, a person's edit — into the tool's
	// input: decoded against the tool's schema and checked by the tool's own validation. Its
	// error refuses the substitution and is the deny's message. Nil decodes with the tool's
	// Decode method when it has one, and refuses substitutions otherwise.
	Prepare func(ctx context.Context, updated any) (any, error)
}

// maxSubstitutions bounds how often one ask's answers may substitute a new input, each of
// which is asked about again: an answerer that keeps substituting is refused, not looped on.
const maxSubstitutions = 3

// AuthorizeCall decides a call and settles an ask. Hooks' verdicts are ranked against the
// rules (see withHook); an ask goes to the call's asker (the parent's in bubble mode), and with
// none it is a deny whose message is the ask's.
//
// An answer never approves a call unseen. When an answer allows with a different input, that
// input is prepared (decoded and validated) and decided as a new call through the whole
// pipeline — deny and ask rules, safety checks, the mode, this engine's classifier and denial
// counters. An allow there runs it; a deny denies. An ask goes back to the same asker with the
// new input and why (AskRequest.Again) when an ask rule, a safety check or the classifier
// asks; when only the absence of an allow rule asks, the answerer has approved the input it
// wrote, and it runs. The returned allow carries the input to run in UpdatedInput whenever it
// differs from the call's.
func (e *Engine) AuthorizeCall(ctx context.Context, pc *Context, c Call) (Decision, error) {
	d, err := e.authorizeCall(ctx, pc, c)
	if err == nil {
		d.By = attribute(d, e.PolicyVersion)
	}
	return d, err
}

func (e *Engine) authorizeCall(ctx context.Context, pc *Context, c Call) (Decision, error) {
	if err := ctx.Err(); err != nil {
		return Decision{}, err
	}
	if c.Hook != nil {
		if d, ok, err := e.withHook(ctx, pc, c); ok {
			return d, err
		}
	}
	d, err := e.Decide(ctx, pc, c.Tool, c.Input)
	if err != nil || d.Behavior != Ask {
		return d, err
	}
	return e.settle(ctx, pc, c, d)
}

// settle puts an ask to the asker, or denies it when there is none, and decides again what an
// answer substituted.
func (e *Engine) settle(ctx context.Context, pc *Context, c Call, d Decision) (Decision, error) {
	name := c.Tool.Name()
	// Every ask settles here, whatever produced it (a rule, a safety check, a hook's ask).
	if dd, ok := pc.promptDenied(ctx, name, d); ok {
		return dd, nil
	}
	asker := c.Asker
	if pc.mode == ModeBubble && e.ParentAsker != nil {
		asker = e.ParentAsker
	}
	if asker == nil {
		if d.denialLimit {
			return Decision{}, ErrTooManyDenials
		}
		return Decision{Behavior: Deny, Message: d.Message, Reason: d.Reason, BlockedPath: d.BlockedPath, headless: true}, nil
	}
	d, err := e.ask(ctx, pc, c, d, asker)
	return d, err
}

// ask puts the ask to asker and settles its answers; the decision remembers the answer that
// settled it, for who decided.
func (e *Engine) ask(ctx context.Context, pc *Context, c Call, d Decision, asker Asker) (Decision, error) {
	name := c.Tool.Name()
	input, modified, again := c.Input, false, ""
	for round := 0; ; round++ {
		ans, err := asker.Ask(ctx, AskRequest{Tool: name, Input: input, Decision: d, Again: again})
		if err != nil {
			return Decision{}, fmt.Errorf("asking for %s: %w", name, err)
		}
		if ans.Behavior != Allow && ans.Behavior != Deny {
			return Decision{}, fmt.Errorf("asker answered %s for %s; want allow or deny", ans.Behavior, name)
		}
		if ans.Behavior == Deny {
			return answered(ans, ans.Reason), nil
		}
		if ans.UpdatedInput != nil {
			next, err := e.prepare(ctx, c, ans.UpdatedInput)
			if err != nil {
				Note(ctx, Step{Name: "answer substitutes input", Outcome: "deny", Detail: err.Error()})
				return answered(Decision{Behavior: Deny, Message: invalidSubstituteMessage(name, err), Reason: ans.Reason}, ans.Reason), nil
			}
			if !reflect.DeepEqual(next, input) {
				modified = modified || ans.UserModified
				if round == maxSubstitutions {
					Note(ctx, Step{Name: "answer substitutes input", Outcome: "deny", Detail: "too many substitutions"})
					return answered(Decision{Behavior: Deny, Message: tooManySubstitutesMessage(name), Reason: ans.Reason}, ans.Reason), nil
				}
				nd, err := e.decideSubstitute(ctx, pc, c.Tool, next)
				if err != nil {
					return Decision{}, err
				}
				switch {
				case nd.Behavior == Allow:
					if nd.UpdatedInput == nil {
						nd.UpdatedInput = next
					}
					nd.UserModified = modified
					// The answerer approved the edited call, which the engine allowed.
					return answered(nd, ans.Reason), nil
				case nd.Behavior == Deny:
					return nd, nil
				}
				why := AgainReason(nd)
				if why == "" {
					// Only "no rule allows it" asks: the answerer approved the input it wrote.
					Note(ctx, Step{Name: "answer substitutes input", Outcome: "allow", Detail: "the answerer's own input; no rule, safety check or classifier asks about it"})
					return answered(Decision{Behavior: Allow, UpdatedInput: next, UserModified: modified, Reason: ans.Reason}, ans.Reason), nil
				}
				// The substitute meets a check no answer can settle unseen: its answerer is shown
				// exactly what would run, and why it is asked again.
				input, d, again = next, nd, why
				continue
			}
		}
		// Allowed as shown: the call's own input, or the substitute asked about last.
		ans.UpdatedInput, ans.UserModified = nil, modified
		if round > 0 {
			ans.UpdatedInput = input
		}
		return answered(ans, ans.Reason), nil
	}
}

// answered marks d as settled by an asker's answer whose reason is r.
func answered(d Decision, r *Reason) Decision {
	if r == nil {
		r = &Reason{}
	}
	d.answer = r
	return d
}

// AgainReason says why a substitute's ask goes back to its answerer: an ask rule, a safety check
// (the damage budget is one) or auto mode's classifier, in the call or in one command of a
// compound. It is "" when nothing but the absence of an allow rule asks: an answerer that
// wrote the input has approved it.
func AgainReason(d Decision) string {
	if d.Behavior != Ask || d.Reason == nil {
		return ""
	}
	r := d.Reason
	switch {
	case d.isAskRule(), r.Type == ReasonSafetyCheck, r.Type == ReasonClassifier:
		return "the substituted input meets " + r.String()
	case r.Type == ReasonSubcommandResults:
		for _, sub := range r.Subresults {
			if why := AgainReason(sub.Decision); why != "" {
				return why + " (in " + sub.Command + ")"
			}
		}
	}
	return ""
}

// decideSubstitute decides a substituted input as a new call. A tool that exists to ask a
// person (AskUserQuestion, ExitPlanMode) is answered by the substitution itself — its answers,
// an edited plan — so only the steps nothing can bypass apply to it.
func (e *Engine) decideSubstitute(ctx context.Context, pc *Context, t Checker, input any) (Decision, error) {
	Note(ctx, Step{Name: "answer substitutes input", Outcome: "decide again"})
	if !requiresUserInteraction(t) {
		return e.Decide(ctx, pc, t, input)
	}
	d := e.inner(ctx, pc, t, input, interactionAnswered)
	if d.Behavior != Passthrough {
		return e.post(ctx, pc, t, input, d)
	}
	return Decision{Behavior: Allow, Reason: &Reason{Type: ReasonOther, Detail: "answered by the person " + t.Name() + " asked"}}, nil
}

// decoder is implemented by tools that decode JSON input (every tool.Tool).
type decoder interface {
	Decode(raw json.RawMessage) (any, error)
}

// prepare turns a substituted input into the tool's input.
func (e *Engine) prepare(ctx context.Context, c Call, updated any) (any, error) {
	if c.Prepare != nil {
		return c.Prepare(ctx, updated)
	}
	dec, ok := c.Tool.(decoder)
	if !ok {
		return nil, fmt.Errorf("%s cannot check a substituted input", c.Tool.Name())
	}
	raw, err := RawInput(updated)
	if err != nil {
		return nil, err
	}
	return dec.Decode(raw)
}

// RawInput is a substituted input as JSON: answer channels send JSON text, a decoded JSON
// object or the tool's own input value.
func RawInput(updated any) (json.RawMessage, error) {
	switch v := updated.(type) {
	case json.RawMessage:
		return v, nil
	case []byte:
		return v, nil
	}
	b, err := json.Marshal(updated)
	if err != nil {
		return nil, fmt.Errorf("encoding the substituted input: %w", err)
	}
	return b, nil
}

func invalidSubstituteMessage(tool string, err error) string {
	return fmt.Sprintf("Permission to use %s was not granted: the input substituted when the call was answered is invalid: %v", tool, err)
}

func tooManySubstitutesMessage(tool string) string {
	return fmt.Sprintf("Permission to use %s was not granted: the answers kept substituting a different input (%d times).", tool, maxSubstitutions+1)
}
