package permission

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
)

// Checker is what the engine needs from a tool.
type Checker interface {
	Name() string
	// CheckPermissions answers for the tool's own content (a command, a path, a URL). It
	// returns Passthrough to leave the decision to the pipeline.
	CheckPermissions(ctx context.Context, pc *Context, input any) Decision
}

// userInteractor is implemented by tools that must always reach a person (AskUserQuestion,
// ExitPlanMode): their ask survives bypass mode.
type userInteractor interface {
	RequiresUserInteraction() bool
}

// Pinned is implemented by tools whose definition can change under the rules granted for them
// (MCP tools: a server may serve a new description after the person allowed the tool). An
// allow rule applies to such a tool only while PinMatches accepts it.
type Pinned interface {
	PinMatches(r *Rule) (ok bool, detail string)
}

func pinMatches(t Checker, r *Rule) (bool, string) {
	p, ok := t.(Pinned)
	if !ok {
		return true, ""
	}
	return p.PinMatches(r)
}

func requiresUserInteraction(t Checker) bool {
	u, ok := t.(userInteractor)
	return ok && u.RequiresUserInteraction()
}

// Classifier judges a tool call in auto mode.
type Classifier interface {
	Classify(ctx context.Context, req ClassifyRequest) (Verdict, error)
}

// ClassifyRequest is a call the classifier is asked about.
type ClassifyRequest struct {
	Tool  string
	Input any
	// Context is the permission context the call is decided in: its working directories
	// and rules are part of what the classifier judges against.
	Context *Context
}

// Verdict is the classifier's answer.
type Verdict struct {
	Block  bool
	Reason string
}

// Asker puts an ask to whoever can answer: a person at a terminal, a permission-prompt tool,
// or the parent agent. It returns allow or deny, possibly with updates to apply.
type Asker interface {
	Ask(ctx context.Context, req AskRequest) (Decision, error)
}

// AskRequest is an ask as put to an Asker.
type AskRequest struct {
	Tool     string
	Input    any
	Decision Decision
	// Again is set when Input is what this asker's previous answer substituted, asked about
	// again: why (the ask rule, safety check or classifier it met).
	Again string
}

// Denial limits of auto mode: after this many classifier denials in a row, or in a session,
// the next decision falls back to a prompt.
const (
	MaxConsecutiveDenials = 3
	MaxTotalDenials       = 20
)

// ErrTooManyDenials stops a headless run whose auto-mode classifier keeps denying.
var ErrTooManyDenials = errors.New("agent aborted: too many classifier denials in headless mode")

// safeAutoTools are allowed in auto mode without consulting the classifier.
var safeAutoTools = []string{"Read", "Grep", "Glob", "LSP", "ToolSearch", "ListMcpResourcesTool", "ReadMcpResourceTool",
	"TodoWrite", "TaskCreate", "TaskGet", "TaskList", "TaskUpdate", "TaskOutput", "TaskStop", "AskUserQuestion",
	"EnterPlanMode", "ExitPlanMode", "SendMessage", "Sleep"}

// Engine decides tool calls. Its zero value is ready to use: with no classifier, auto mode
// fails closed.
type Engine struct {
	Classifier Classifier
	// ParentAsker receives the asks of a context in bubble mode (a forked sub-agent whose
	// prompts surface in its parent).
	ParentAsker Asker
	// PolicyVersion is the version of the signed policy bundle the session's policy settings
	// came from ("" for none). Every decision's trace names it; the audit log and telemetry
	// stamp it on what they record.
	PolicyVersion string

	mu          sync.Mutex
	consecutive int
	total       int
}

// Decide runs the full pipeline for one call and returns the decision. It runs nothing and
// asks no one. The error is non-nil only when ctx is done or auto mode must abort.
func (e *Engine) Decide(ctx context.Context, pc *Context, t Checker, input any) (Decision, error) {
	if err := ctx.Err(); err != nil {
		return Decision{}, err
	}
	e.notePolicy(ctx)
	pc = e.autoView(ctx, pc, t)
	d := e.inner(ctx, pc, t, input, fullPipeline)
	return e.post(ctx, pc, t, input, d)
}

// autoView is the context a call is decided in: while auto mode is active, without the allow
// rules it sets aside for the tool (autoaside.go).
func (e *Engine) autoView(ctx context.Context, pc *Context, t Checker) *Context {
	if !pc.autoActive() {
		return pc
	}
	return pc.withoutSetAside(ctx, t)
}

// notePolicy names the policy bundle in the trace.
func (e *Engine) notePolicy(ctx context.Context) {
	if e.PolicyVersion != "" {
		Note(ctx, Step{Name: "policy bundle", Outcome: "version", Detail: e.PolicyVersion})
	}
}

// RuleBased runs only the steps nothing can bypass — tool-wide deny and ask rules and the tool's
// deny, content ask rule and safety answers — for callers such as a PreToolUse hook that already
// allowed the call. It returns Passthrough when none of them objects.
func (e *Engine) RuleBased(ctx context.Context, pc *Context, t Checker, input any) Decision {
	e.notePolicy(ctx)
	return e.inner(ctx, pc, t, input, ruleBasedOnly)
}

// stages says how much of the pipeline inner runs.
type stages int

const (
	// fullPipeline runs every step up to the mode's post-processing.
	fullPipeline stages = iota
	// ruleBasedOnly stops after steps 1a-1g: what nothing can bypass.
	ruleBasedOnly
	// interactionAnswered is ruleBasedOnly for the substituted input of a tool that exists to
	// ask a person (AskUserQuestion's answers, an edited plan): step 1e's ask has been answered.
	interactionAnswered
)

func (e *Engine) inner(ctx context.Context, pc *Context, t Checker, input any, upTo stages) Decision {
	name := t.Name()
	pc = e.autoView(ctx, pc, t)
	if r := pc.ToolWideRule(Deny, name); r != nil {
		NoteRule(ctx, "1a tool-wide deny", r, "deny")
		return Decision{Behavior: Deny, Message: deniedMessage(name), Reason: &Reason{Type: ReasonRule, Rule: r}}
	}
	Note(ctx, Step{Name: "1a tool-wide deny", Outcome: "no match"})
	// The tool's check runs before step 1b (see below); its own trace lines are held back
	// and written under 1c, so the trace reads in pipeline order.
	var toolSteps Trace
	checkCtx := ctx
	if Tracing(ctx) {
		checkCtx = WithTrace(ctx, &toolSteps)
	}
	d := checkTool(checkCtx, pc, t, input)
	if d.Behavior != Allow && d.Message == "" {
		d.Message = RequestMessage(name)
	}
	replay := func() {
		for _, st := range toolSteps.Steps() {
			Note(ctx, st)
		}
	}
	r := pc.ToolWideRule(Ask, name)
	skipped := false
	if r != nil && pc.sandboxAutoAllows(t, input) {
		// The OS sandbox confines the command, so the blanket ask gives way; the tool's check
		// still applies its deny and ask rules and safety checks.
		NoteRule(ctx, "1b tool-wide ask", r, "skip")
		Note(ctx, Step{Name: "1b sandbox", Outcome: "fall through", Detail: SandboxAutoAllowDetail})
		r, skipped = nil, true
	}
	if r != nil {
		// Claude Code returns this ask before the tool's own check runs, so a content deny
		// rule (Bash(rm:*)) under a tool-wide ask (Bash) asks instead of denying. Deny must win
		// over ask wherever both match, so the tool's deny is honoured first.
		if d.Behavior == Deny {
			replay()
			Note(ctx, Step{Name: "1b tool-wide ask", Outcome: "deny", Detail: "the tool's own check denies: " + reasonDetail(d)})
			return d
		}
		NoteRule(ctx, "1b tool-wide ask", r, "ask")
		return Decision{Behavior: Ask, Message: RequestMessage(name), Reason: &Reason{Type: ReasonRule, Rule: r}}
	}
	if !skipped {
		Note(ctx, Step{Name: "1b tool-wide ask", Outcome: "no match"})
	}
	replay()
	Note(ctx, Step{Name: "1c tool check", Outcome: d.Behavior.String(), Detail: reasonDetail(d)})
	switch {
	case d.Behavior == Deny:
		Note(ctx, Step{Name: "1d tool deny", Outcome: "deny"})
		return d
	case d.Behavior == Ask && requiresUserInteraction(t) && upTo != interactionAnswered:
		Note(ctx, Step{Name: "1e requires user interaction", Outcome: "ask"})
		return d
	case d.isAskRule():
		Note(ctx, Step{Name: "1f content ask rule", Outcome: "ask"})
		return d
	case d.isSafetyAsk():
		Note(ctx, Step{Name: "1g safety check", Outcome: "ask"})
		return d
	}
	if td, ok := e.taintStep(ctx, pc, t, input); ok {
		return td
	}
	if ed, ok := escapeStep(ctx, pc, t, input, d); ok {
		return ed
	}
	if upTo != fullPipeline {
		return Decision{Behavior: Passthrough, Message: RequestMessage(name)}
	}

	if pc.mode == ModeBypass || (pc.mode == ModePlan && pc.bypassAvailable) {
		Note(ctx, Step{Name: "2a bypass mode", Outcome: "allow", Detail: string(pc.mode)})
		return Decision{Behavior: Allow, UpdatedInput: d.UpdatedInput, Reason: &Reason{Type: ReasonMode, Mode: pc.mode}}
	}
	Note(ctx, Step{Name: "2a bypass mode", Outcome: "skip", Detail: string(pc.mode)})
	if r := pc.ToolWideRule(Allow, name); r != nil {
		if ok, detail := pinMatches(t, r); !ok {
			// A rug-pull: the rule was granted for another definition of this tool.
			Note(ctx, Step{Name: "2b tool-wide allow", Outcome: "pin changed", Detail: detail})
			return Decision{Behavior: Ask, Message: RequestMessage(name) + " (" + detail + ")", Reason: &Reason{Type: ReasonOther, Detail: detail}}
		}
		NoteRule(ctx, "2b tool-wide allow", r, "allow")
		return Decision{Behavior: Allow, UpdatedInput: d.UpdatedInput, Reason: &Reason{Type: ReasonRule, Rule: r}}
	}
	Note(ctx, Step{Name: "2b tool-wide allow", Outcome: "no match"})
	if d.Behavior == Passthrough {
		d.Behavior = Ask
		d.Message = RequestMessage(name)
		Note(ctx, Step{Name: "3 passthrough", Outcome: "ask"})
	}
	return d
}

// checkTool calls the tool's own check. A panic in it must not let the call through: the
// result stays passthrough, which asks.
func checkTool(ctx context.Context, pc *Context, t Checker, input any) (d Decision) {
	defer func() {
		if r := recover(); r != nil {
			d = Decision{Behavior: Passthrough, Message: RequestMessage(t.Name()),
				Reason: &Reason{Type: ReasonOther, Detail: fmt.Sprintf("permission check failed: %v", r)}}
		}
	}()
	return t.CheckPermissions(ctx, pc, input)
}

func reasonDetail(d Decision) string {
	if d.Reason == nil {
		return d.Message
	}
	return d.Reason.String()
}

func (e *Engine) post(ctx context.Context, pc *Context, t Checker, input any, d Decision) (Decision, error) {
	name := t.Name()
	switch d.Behavior {
	case Allow:
		if e.autoActive(pc) {
			e.mu.Lock()
			e.consecutive = 0
			e.mu.Unlock()
		}
		return d, nil
	case Deny:
		return d, nil
	}
	// Ask (Passthrough cannot reach here: inner turns it into ask).
	if pc.mode == ModeDontAsk {
		Note(ctx, Step{Name: "post dontAsk", Outcome: "deny"})
		return Decision{Behavior: Deny, Message: dontAskMessage(name), Reason: &Reason{Type: ReasonMode, Mode: ModeDontAsk}}, nil
	}
	if e.autoActive(pc) {
		d, err := e.auto(ctx, pc, t, input, d)
		if err == nil && d.Behavior == Ask {
			if dd, ok := pc.promptDenied(ctx, name, d); ok {
				return dd, nil
			}
		}
		return d, err
	}
	if dd, ok := pc.promptDenied(ctx, name, d); ok {
		return dd, nil
	}
	if pc.avoidPrompts {
		Note(ctx, Step{Name: "post prompt-less context", Outcome: "deny"})
		return Decision{Behavior: Deny, Message: autoRejectMessage(name), Reason: &Reason{Type: ReasonAsyncAgent, Detail: "no one can answer prompts in this context"}}, nil
	}
	return d, nil
}

func (e *Engine) autoActive(pc *Context) bool { return pc.autoActive() }

func (e *Engine) auto(ctx context.Context, pc *Context, t Checker, input any, d Decision) (Decision, error) {
	name := t.Name()
	keepAsk := func(step string) (Decision, error) {
		Note(ctx, Step{Name: step, Outcome: "ask"})
		if pc.avoidPrompts {
			return Decision{Behavior: Deny, Message: autoRejectMessage(name), Reason: &Reason{Type: ReasonAsyncAgent, Detail: "no one can answer prompts in this context"}}, nil
		}
		return d, nil
	}
	// What steps 1b and 1e-1g asked for stays an ask: the shortcuts below and the classifier
	// answer only for calls no rule or check has an opinion on. Claude Code 2.1.88 let its
	// safe-tool list answer an ask rule on Read and its classifier approve a sensitive-file
	// safety check; Reins asks a person for both (docs/deviations.md).
	switch {
	case d.isSafetyAsk():
		return keepAsk("auto: safety check needs a person")
	case d.isAskRule():
		return keepAsk("auto: ask rule needs a person")
	case requiresUserInteraction(t):
		return keepAsk("auto: requires user interaction")
	}
	if name != "Agent" {
		fast := checkTool(ctx, pc.WithMode(ModeAcceptEdits), t, input)
		if fast.Behavior == Allow {
			Note(ctx, Step{Name: "auto: acceptEdits fast path", Outcome: "allow"})
			e.resetConsecutive()
			return Decision{Behavior: Allow, UpdatedInput: fast.UpdatedInput, Reason: &Reason{Type: ReasonClassifier, Detail: "allowed as acceptEdits would allow it"}}, nil
		}
	}
	if slices.Contains(safeAutoTools, name) {
		Note(ctx, Step{Name: "auto: safe tool", Outcome: "allow"})
		e.resetConsecutive()
		return Decision{Behavior: Allow, Reason: &Reason{Type: ReasonClassifier, Detail: name + " is on the safe-tool allowlist"}}, nil
	}
	verdict, reason, failed, err := e.classify(ctx, pc, name, input)
	if err != nil {
		return Decision{}, err
	}
	if !verdict.Block {
		Note(ctx, Step{Name: "auto: classifier", Outcome: "allow", Detail: reason})
		e.resetConsecutive()
		return Decision{Behavior: Allow, Reason: &Reason{Type: ReasonClassifier, Detail: reason}}, nil
	}
	cons, total := e.countDenial()
	if cons >= MaxConsecutiveDenials || total >= MaxTotalDenials {
		Note(ctx, Step{Name: "auto: classifier", Outcome: "deny", Detail: reason})
		return e.denialLimit(ctx, pc, d, cons, total)
	}
	if failed {
		Note(ctx, Step{Name: "auto: classifier failed", Outcome: "deny", Detail: reason})
		return Decision{Behavior: Deny, Message: "Permission for this action has been denied. Reason: " + reason + "; try again shortly.",
			Reason: &Reason{Type: ReasonClassifier, Detail: reason}}, nil
	}
	Note(ctx, Step{Name: "auto: classifier", Outcome: "deny", Detail: reason})
	return Decision{Behavior: Deny, Message: "Permission for this action has been denied. Reason: " + reason,
		Reason: &Reason{Type: ReasonClassifier, Detail: reason}}, nil
}

// classify asks the classifier about a call. failed says the answer is no verdict (no
// classifier, an error, a timeout, an answer that cannot be read); it is then a block whose
// reason names the failure, as Claude Code denies when its classifier is unavailable. The
// error is the context's only.
func (e *Engine) classify(ctx context.Context, pc *Context, name string, input any) (v Verdict, reason string, failed bool, err error) {
	if e.Classifier == nil {
		return Verdict{Block: true}, "no auto-mode classifier is configured", true, nil
	}
	v, err = e.Classifier.Classify(ctx, ClassifyRequest{Tool: name, Input: input, Context: pc})
	switch {
	case ctx.Err() != nil:
		return Verdict{}, "", false, ctx.Err()
	case err != nil:
		return Verdict{Block: true}, fmt.Sprintf("the auto-mode classifier gave no verdict: %v", err), true, nil
	}
	return v, v.Reason, false, nil
}

// countDenial counts a block and returns the counters; the total starts again once it
// reached its limit, as the limit's fallback has been taken.
func (e *Engine) countDenial() (cons, total int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.consecutive++
	e.total++
	cons, total = e.consecutive, e.total
	if total >= MaxTotalDenials {
		e.total = 0
	}
	return cons, total
}

// denialLimit is the fallback once the classifier blocked too often: a person is asked, and
// where no one can be (a prompt-less context, or a call without an asker) the run aborts.
func (e *Engine) denialLimit(ctx context.Context, pc *Context, d Decision, cons, total int) (Decision, error) {
	if pc.avoidPrompts {
		return Decision{}, ErrTooManyDenials
	}
	warn := fmt.Sprintf("%d consecutive actions were blocked by auto mode; asking instead.", cons)
	if total >= MaxTotalDenials {
		warn = fmt.Sprintf("%d actions were blocked by auto mode this session; asking instead.", total)
	}
	Note(ctx, Step{Name: "auto: denial limit", Outcome: "ask", Detail: warn})
	d.Message = warn + "\n" + d.Message
	d.denialLimit = true
	return d, nil
}

func (e *Engine) resetConsecutive() {
	e.mu.Lock()
	e.consecutive = 0
	e.mu.Unlock()
}

// Authorize decides a call and settles an ask: with an asker, the asker answers; without one
// (headless), the ask becomes a deny whose message is the ask message. In bubble mode the
// parent's asker answers. It is [Engine.AuthorizeCall] for a call without hooks whose
// substituted inputs the tool itself can decode.
func (e *Engine) Authorize(ctx context.Context, pc *Context, t Checker, input any, asker Asker) (Decision, error) {
	return e.AuthorizeCall(ctx, pc, Call{Tool: t, Input: input, Asker: asker})
}
