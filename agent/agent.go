package agent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/reinsdev/reins/hooks"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/toolcall"
)

// DefaultMaxTokens bounds each reply when [Agent.MaxTokens] is zero.
const DefaultMaxTokens = 8192

// Result subtypes, as in Claude Code's result message.
const (
	SubtypeSuccess        = "success"
	SubtypeMaxTurns       = "error_max_turns"
	SubtypeExecutionError = "error_during_execution"
	SubtypeMaxBudget      = "error_max_budget_usd"
)

// Terminal reasons, as in Claude Code's result message (terminal_reason): why the turn
// ended, beside its subtype.
const (
	TerminalCompleted   = "completed"
	TerminalHookStopped = "hook_stopped"
	TerminalMaxTurns    = "max_turns"
)

// Recorder keeps a conversation as it happens. Each method returns once the entry is stored
// (at least so that it outlives the process); an error ends the run. A Recorder that makes
// entries durable later implements [Flusher].
type Recorder interface {
	// AppendMessage stores a message that joined the conversation.
	AppendMessage(m llm.Message) error
	// AppendPermissions stores the session's permission state after it changed.
	AppendPermissions(st SessionState) error
}

// Flusher is a [Recorder] that defers making its entries durable, such as a session file
// synced in the background. Run calls Flush at its end, before it publishes the result, so
// a reported turn is on disk; a Flush error makes the run's error.
type Flusher interface {
	Flush() error
}

// Agent runs conversations. Provider, Model, Tools and Permissions are required; everything
// else has a default. An Agent may run one conversation at a time.
type Agent struct {
	Provider llm.Provider
	Model    string
	System   []llm.SystemBlock
	Tools    []tool.Tool
	// Deferral keeps deferred tools' schemas out of requests until a tool search loads them;
	// nil sends every schema.
	Deferral *tool.Deferral
	// MaxTokens bounds each reply; zero means DefaultMaxTokens, or with thinking on,
	// ThinkingBudget + DefaultMaxTokens (the reasoning counts towards the reply).
	MaxTokens int
	// ThinkingBudget, when positive, asks the model for extended thinking with at most
	// this many tokens of reasoning per reply (llm.Request.ThinkingBudget).
	ThinkingBudget int
	// MaxTurns ends the run after this many model replies; zero means no limit.
	MaxTurns int
	// MaxBudgetUSD ends the run once its estimated cost reaches this many dollars, checked
	// after each model reply as Claude Code does; zero means no limit. A run on a model whose
	// price is unknown fails rather than run unmetered.
	MaxBudgetUSD float64
	// MaxConcurrency caps the concurrency-safe calls run at once; zero means
	// DefaultMaxConcurrency.
	MaxConcurrency int

	// Engine decides every call; nil means a zero Engine.
	Engine *permission.Engine
	// Asker answers asks. Nil is headless: an ask becomes a deny whose message goes back to
	// the model. A permission-prompt tool plugs in here.
	Asker       permission.Asker
	Permissions *Permissions
	// Env is the environment every call shares (file state, tool state). Each call gets a copy
	// with its own Permissions, UpdatePermissions and Progress; the agent never writes into it.
	// Nil, or a nil Values map, has the agent keep the tools' state from run to run itself.
	Env *tool.Env
	// Cwd, if set, returns the current directory (the shell's, which `cd` moves); the
	// permission context tools see resolves relative paths against it.
	Cwd func() string

	Recorder Recorder
	Bus      *Bus
	// Observer, if set, wraps the run, each model request and each tool call (telemetry).
	Observer Observer

	// Notices, if set, is called before each model request; the texts it returns (a
	// background task finished, say) are added to the conversation as user text, so that the
	// model learns of them at its next turn.
	Notices func() []string

	// Hooks runs the configured hooks: PreToolUse, PermissionDenied and PostToolUse(Failure)
	// around each call, UserPromptSubmit before the prompt, Stop when the model ends its turn.
	// Nil runs none. PermissionRequest hooks answer through the Asker (hooks.Asker).
	Hooks *hooks.Runner
	// Audit records each decision before its call runs (the audit log); a failure to record
	// ends the run. Nil records none.
	Audit toolcall.Auditor
	// SubAgent marks a sub-agent's loop: when it ends its turn, the SubagentStop hooks run
	// instead of the Stop hooks.
	SubAgent bool

	// ResultsDir is the folder where a successful result longer than its tool's cap
	// ([tool.Spec.MaxResultChars]) is saved, as <tool_use id>.txt, while the model gets a
	// <persisted-output> block with the path and a preview. It is created on first use; the
	// caller owns it (and makes it readable to the model: permission.Config.InternalReadDirs).
	// "" sends every result whole.
	ResultsDir string

	// Compaction says when the conversation is compacted and what is carried over; the zero
	// value compacts automatically near the model's window.
	Compaction Compaction

	// acct is what the last response measured of the conversation.
	acct accounting

	// values is the tools' session state when Env brings none: kept here, not written into
	// the caller's Env, so that it lasts from run to run.
	values map[any]any
}

// Result is the outcome of a run.
type Result struct {
	Subtype string
	IsError bool
	// Text is the text of the last assistant message.
	Text     string
	NumTurns int
	// Duration is the run's wall time; APIDuration the part spent waiting for the model.
	Duration    time.Duration
	APIDuration time.Duration
	Usage       llm.Usage
	// CostUSD is the estimated cost; CostKnown is false when the model's prices are unknown.
	CostUSD           float64
	CostKnown         bool
	PermissionDenials []Denial
	// Messages is the whole conversation, history included.
	Messages []llm.Message
	// Err is why the run failed, for SubtypeExecutionError.
	Err error
	// TerminalReason says why the turn ended (Terminal*): "" for a failure Claude Code has no
	// reason for.
	TerminalReason string
	// HookStop is the hook that stopped the turn (continue: false), for TerminalHookStopped:
	// the turn succeeded, and a front end tells the person why it ended there.
	HookStop *HookStopError
}

// Run continues the conversation history with prompt, a user message, and runs until the model
// ends its turn, the turn limit is reached, the context is cancelled or something fails. It
// always returns a Result (published as the last event); the error is non-nil when the run
// failed or was aborted, and wraps the context's error on abort.
func (a *Agent) Run(ctx context.Context, history []llm.Message, prompt llm.Message) (*Result, error) {
	r := &run{a: a, start: time.Now(), res: &Result{Subtype: SubtypeSuccess, CostKnown: true}, promptID: promptUUID(ctx)}
	ctx, r.observed = a.observeRun(ctx, prompt)
	if a.Provider == nil || a.Permissions == nil {
		return r.finish(errors.New("agent: Provider and Permissions are required"))
	}
	// The rules a skill loaded in this turn end with it, however it ends: every front end
	// runs its turns through Run.
	defer a.Permissions.EndTurn()
	r.x = a.newExecutor()
	if a.Recorder != nil {
		a.Permissions.setOnChange(a.Recorder.AppendPermissions)
		defer a.Permissions.setOnChange(nil)
	}
	prompt, err := r.submit(ctx, prompt)
	if err != nil {
		return r.finish(err)
	}
	if err := r.begin(history, prompt); err != nil {
		return r.finish(err)
	}
	return r.finish(r.loop(ctx))
}

// run is the state of one Run: the conversation as it grows, and the result being made.
type run struct {
	a     *Agent
	x     *executor
	start time.Time
	res   *Result
	msgs  []llm.Message
	// usageMu guards res's usage and cost while a turn's calls report side requests.
	usageMu sync.Mutex
	// observed tells the Observer the run's result; nil for a run that Run did not start.
	observed func(*Result)
	// autoErr is the error of an automatic compaction that failed: the run then compacts no
	// more, so that it does not pay for a failing summary request before every turn, nor
	// summarize again when the API refuses the request as too long right after.
	autoErr error
	// compactions counts the run's automatic compactions (MaxCompactionsPerRun).
	compactions int
	// promptID is the caller's uuid of the prompt (WithPromptUUID); replyID the uuid of the
	// last reply, published with it and recorded with it.
	promptID, replyID string
}

// newExecutor is what runs the calls of one Run: the tools by name and alias, and the
// pipeline with the run's engine, asker and hooks.
func (a *Agent) newExecutor() *executor {
	env := &tool.Env{}
	if a.Env != nil {
		*env = *a.Env
	}
	if env.Values == nil {
		// Tools keep session state here; every call's Env shares this map, run after run.
		if a.values == nil {
			a.values = map[any]any{}
		}
		env.Values = a.values
	}
	x := &executor{
		tools:       map[string]tool.Tool{},
		perms:       a.Permissions,
		cwd:         a.Cwd,
		env:         env,
		bus:         a.Bus,
		observer:    a.Observer,
		concurrency: cmp.Or(a.MaxConcurrency, DefaultMaxConcurrency),
		deferral:    a.Deferral,
		resultsDir:  a.ResultsDir,
	}
	x.pipeline = toolcall.Pipeline{Engine: cmp.Or(a.Engine, &permission.Engine{}), Asker: a.Asker, Hooks: a.Hooks,
		Notify:  func(msg string) { a.Bus.Publish(Event{Type: EventHookMessage, Text: msg}) },
		Stop:    func(ev hooks.Event, reason string) { x.stop.set(ev, reason) },
		Granted: a.Permissions.consume,
		Finish:  x.persistResult,
		Audit:   a.Audit,
	}
	for _, t := range a.Tools {
		x.tools[t.Name()] = t
		for _, alias := range t.Spec().Aliases {
			if _, ok := x.tools[alias]; !ok {
				x.tools[alias] = t
			}
		}
	}
	return x
}

// finish ends the run: the session is flushed, the result made and published.
func (r *run) finish(err error) (*Result, error) {
	if f, ok := r.a.Recorder.(Flusher); ok {
		if ferr := f.Flush(); ferr != nil && err == nil {
			err = fmt.Errorf("recording the session: %w", ferr)
		}
	}
	if hs, ok := errors.AsType[*HookStopError](err); ok && hs.Event != hooks.UserPromptSubmit {
		// A hook's continue: false ends the turn as the hook asked: not a failure.
		r.res.HookStop, r.res.TerminalReason, err = hs, TerminalHookStopped, nil
	}
	switch {
	case err != nil:
		r.res.Subtype, r.res.IsError, r.res.Err = SubtypeExecutionError, true, err
	case r.res.TerminalReason != "":
	case r.res.Subtype == SubtypeMaxTurns:
		r.res.TerminalReason = TerminalMaxTurns
	case r.res.Subtype == SubtypeSuccess:
		r.res.TerminalReason = TerminalCompleted
	}
	r.res.Messages = r.msgs
	r.res.Duration = time.Since(r.start)
	if r.observed != nil {
		// A run that Compact makes on its own has no observer's end to call.
		r.observed(r.res)
	}
	r.a.Bus.Publish(Event{Type: EventResult, Result: r.res})
	return r.res, err
}

// submit runs the UserPromptSubmit hooks: they may block the prompt, stop the run, or add
// context to it.
func (r *run) submit(ctx context.Context, prompt llm.Message) (llm.Message, error) {
	a := r.a
	if !a.Hooks.Has(hooks.UserPromptSubmit) {
		return prompt, nil
	}
	pr := a.Hooks.UserPromptSubmit(ctx, toolcall.Common(r.x.permissions()), prompt.Text())
	notify(a.Bus, pr.Messages)
	switch {
	case pr.Blocked:
		return prompt, &HookStopError{Event: hooks.UserPromptSubmit, Reason: pr.Reason}
	case pr.Stop:
		return prompt, &HookStopError{Event: hooks.UserPromptSubmit, Reason: pr.StopReason}
	}
	return withContext(prompt, "UserPromptSubmit hook", pr.Context), nil
}

// begin puts the prompt after the history and records it.
func (r *run) begin(history []llm.Message, prompt llm.Message) error {
	r.msgs = slices.Clone(history)
	if n := len(r.msgs); n > 0 && r.msgs[n-1].Role == llm.RoleUser && prompt.Role == llm.RoleUser {
		// The previous run ended before the model answered; one user turn holds both.
		r.msgs[n-1] = llm.Message{Role: llm.RoleUser, Content: append(slices.Clone(r.msgs[n-1].Content), prompt.Content...)}
	} else {
		r.msgs = append(r.msgs, prompt)
	}
	return r.a.recordInfo(prompt, MessageInfo{UUID: cmp.Or(r.promptID, NewUUID())})
}

// append adds a message to the conversation and records it.
func (r *run) append(m llm.Message, info MessageInfo) error {
	r.msgs = append(r.msgs, m)
	return r.a.recordInfo(m, info)
}

// loop asks the model and runs the tools it calls until the model ends its turn (and no Stop
// hook sends it back), a limit is reached or something fails.
func (r *run) loop(ctx context.Context) error {
	stopHookActive := false
	for {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("run aborted: %w", err)
		}
		resp, err := r.ask(ctx)
		if err != nil || len(resp.Message.Content) == 0 {
			// An empty reply is kept out: an empty assistant message would make the history
			// invalid.
			return err
		}
		r.res.Text = resp.Message.Text()
		if err := r.append(resp.Message, MessageInfo{UUID: r.replyID, Usage: &resp.Usage}); err != nil {
			return err
		}
		uses := resp.Message.ToolUses()
		if len(uses) == 0 {
			next, ok := r.stopHooks(ctx, stopHookActive)
			if !ok {
				return nil
			}
			stopHookActive = true
			if err := r.append(next, MessageInfo{UUID: NewUUID()}); err != nil {
				return err
			}
			continue
		}
		stopHookActive = false
		if done, err := r.runTools(ctx, uses); done {
			return err
		}
	}
}

// ReplyBound is the max tokens of each request: MaxTokens, or its default — DefaultMaxTokens
// after the thinking budget, within what the model takes (llm.MaxOutputTokens).
func (a *Agent) ReplyBound() int {
	if a.MaxTokens > 0 {
		return a.MaxTokens
	}
	return min(a.ThinkingBudget+DefaultMaxTokens, llm.MaxOutputTokens(a.Model))
}

// ask sends the next request and accounts for its reply: turns, usage, cost. Before, it
// compacts the conversation when the request would pass the threshold; when the API still
// answers that the prompt is too long, it compacts and sends it again, once — unless an
// automatic compaction of the run failed, or the run has compacted MaxCompactionsPerRun
// times: then the run ends with the refusal and why it did not compact.
func (r *run) ask(ctx context.Context) (*llm.Response, error) {
	a, res := r.a, r.res
	if err := a.addNotices(&r.msgs); err != nil {
		return nil, err
	}
	if err := r.autoCompact(ctx); err != nil {
		return nil, err
	}
	resp, err := r.send(ctx)
	if err != nil && llm.IsPromptTooLong(err) && !a.Compaction.Disabled && ctx.Err() == nil {
		switch {
		case r.autoErr != nil:
			return nil, fmt.Errorf("calling the model: %w (not compacting again: the automatic compaction of this turn failed: %v)", err, r.autoErr)
		case r.compactions >= MaxCompactionsPerRun:
			return nil, fmt.Errorf("calling the model: %w (%w: %d compactions in this turn)", err, ErrCompactionLimit, r.compactions)
		}
		r.compactions++
		if cerr := r.compact(ctx, TriggerAuto, ""); cerr != nil {
			return nil, fmt.Errorf("calling the model: %w (compacting to recover failed: %v)", err, cerr)
		}
		resp, err = r.send(ctx)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("run aborted: %w", err)
		}
		// Providers name themselves in their errors ("anthropic: 401 …").
		return nil, fmt.Errorf("calling the model: %w", err)
	}
	res.NumTurns++
	res.Usage = res.Usage.Add(resp.Usage)
	a.acct.set(resp.Usage, len(r.msgs)+1)
	model := cmp.Or(resp.Model, a.Model)
	if c, ok := EstimateCost(model, resp.Usage); ok {
		res.CostUSD += c
	} else {
		res.CostKnown = false
	}
	r.replyID = NewUUID()
	a.Bus.Publish(Event{Type: EventAssistant, Response: resp, UUID: r.replyID})
	if a.MaxBudgetUSD > 0 && !res.CostKnown {
		return nil, fmt.Errorf("cannot keep to the budget of $%g: the price of model %s is unknown", a.MaxBudgetUSD, model)
	}
	return resp, nil
}

// send streams one request of the conversation as it stands.
func (r *run) send(ctx context.Context) (*llm.Response, error) {
	a := r.a
	req := &llm.Request{
		Model:     a.Model,
		System:    a.System,
		Messages:  r.msgs,
		Tools:     a.specs(),
		MaxTokens: a.ReplyBound(),

		ThinkingBudget: a.ThinkingBudget,
	}
	apiStart := time.Now()
	ctx, observed := a.observeRequest(ctx, req)
	resp, err := a.Provider.Stream(ctx, req, func(ev llm.Event) {
		switch ev.Type {
		case llm.EventTextDelta:
			a.Bus.Publish(Event{Type: EventTextDelta, Index: ev.Index, Text: ev.Text})
		case llm.EventThinkingDelta:
			a.Bus.Publish(Event{Type: EventThinkingDelta, Index: ev.Index, Text: ev.Text})
		case llm.EventMessageStart:
			a.Bus.Publish(Event{Type: EventMessageStart, Response: &llm.Response{ID: ev.MessageID, Model: ev.Model, Usage: ev.Usage}})
		}
	})
	r.res.APIDuration += time.Since(apiStart)
	observed(resp, err)
	return resp, err
}

// autoCompact compacts when the next request would reach the threshold. A failed automatic
// compaction is told and the request goes as it is (the API may still take it; if not, its
// "prompt is too long" ends the run with both errors). A run that reaches the threshold
// again after MaxCompactionsPerRun compactions ends with ErrCompactionLimit.
func (r *run) autoCompact(ctx context.Context) error {
	a := r.a
	if a.Compaction.AutoDisabled || a.Compaction.Disabled || r.autoErr != nil {
		return nil
	}
	u := a.ContextUsage(r.msgs)
	if u.Tokens < u.Threshold {
		return nil
	}
	if r.compactions >= MaxCompactionsPerRun {
		return fmt.Errorf("%w: the conversation (%d tokens) is over the compaction threshold (%d) again after %d compactions in this turn; the turn ends here, and the next prompt may compact again",
			ErrCompactionLimit, u.Tokens, u.Threshold, r.compactions)
	}
	r.compactions++
	if err := r.compact(ctx, TriggerAuto, ""); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("run aborted: %w", ctx.Err())
		}
		r.autoErr = err
		a.Bus.Publish(Event{Type: EventNotice, Text: "Automatic compaction failed; the conversation goes on uncompacted: " + err.Error()})
	}
	return nil
}

// sideUsage adds the usage of a request made for one of the turn's calls (the auto-mode
// classifier's) to the run's, and publishes it. Calls run in parallel: it locks.
func (r *run) sideUsage(model string, u llm.Usage) {
	r.usageMu.Lock()
	r.res.Usage = r.res.Usage.Add(u)
	if c, ok := EstimateCost(model, u); ok {
		r.res.CostUSD += c
	} else {
		r.res.CostKnown = false
	}
	r.usageMu.Unlock()
	r.a.Bus.Publish(Event{Type: EventUsage, Response: &llm.Response{Model: model, Usage: u}})
}

// stopHooks runs the Stop hooks when the model ended its turn. When one blocks (and turns
// are left), it returns the message that sends the model back to work.
func (r *run) stopHooks(ctx context.Context, active bool) (llm.Message, bool) {
	a := r.a
	ev, stop := hooks.Stop, a.Hooks.Stop
	if a.SubAgent {
		ev, stop = hooks.SubagentStop, a.Hooks.SubagentStop
	}
	if !a.Hooks.Has(ev) {
		return llm.Message{}, false
	}
	sr := stop(ctx, toolcall.Common(r.x.permissions()), active)
	notify(a.Bus, sr.Messages)
	if !sr.Block || ctx.Err() != nil || (a.MaxTurns > 0 && r.res.NumTurns >= a.MaxTurns) {
		return llm.Message{}, false
	}
	return llm.UserText("Stop hook feedback: " + sr.Reason), true
}

// runTools answers the model's tool calls and says whether the run ends there: a failure, a
// hook's stop, an abort, or a limit reached.
func (r *run) runTools(ctx context.Context, uses []llm.Block) (done bool, err error) {
	a, res := r.a, r.res
	// The calls are decided in the conversation as it stands (auto mode's classifier reads
	// it), and what is asked on their behalf counts in the run's cost.
	ctx = llm.WithTranscript(ctx, slices.Clone(r.msgs), a.SubAgent)
	ctx = llm.WithUsageReporter(ctx, r.sideUsage)
	out := r.x.execute(ctx, uses)
	res.PermissionDenials = append(res.PermissionDenials, out.denials...)
	results := llm.Message{Role: llm.RoleUser, Content: out.results}
	r.msgs = append(r.msgs, results)
	id := NewUUID()
	a.Bus.Publish(Event{Type: EventToolResults, Message: &results, Outputs: out.outputs, UUID: id})
	if err := a.recordInfo(results, MessageInfo{UUID: id}); err != nil {
		return true, err
	}
	switch {
	case out.fatal != nil:
		return true, out.fatal
	case out.stopped != nil:
		return true, out.stopped
	case ctx.Err() != nil:
		return true, fmt.Errorf("run aborted: %w", ctx.Err())
	case out.endTurn:
		return true, nil
	case a.MaxTurns > 0 && res.NumTurns >= a.MaxTurns:
		res.Subtype, res.IsError = SubtypeMaxTurns, true
		return true, nil
	case a.MaxBudgetUSD > 0 && res.CostUSD >= a.MaxBudgetUSD:
		res.Subtype, res.IsError = SubtypeMaxBudget, true
		return true, nil
	}
	return false, nil
}

// addNotices adds the pending notices to the conversation: to the last user message when the
// conversation ends with one (the prompt, or a turn's tool results), else as a new one.
func (a *Agent) addNotices(msgs *[]llm.Message) error {
	if a.Notices == nil {
		return nil
	}
	texts := a.Notices()
	if len(texts) == 0 {
		return nil
	}
	var blocks []llm.Block
	for _, t := range texts {
		blocks = append(blocks, llm.Block{Type: llm.BlockText, Text: t})
	}
	note := llm.Message{Role: llm.RoleUser, Content: blocks}
	if n := len(*msgs); n > 0 && (*msgs)[n-1].Role == llm.RoleUser {
		last := (*msgs)[n-1]
		(*msgs)[n-1] = llm.Message{Role: llm.RoleUser, Content: append(slices.Clone(last.Content), blocks...)}
	} else {
		*msgs = append(*msgs, note)
	}
	return a.record(note)
}

// specs are the tool schemas of the next request: every tool but those still deferred.
func (a *Agent) specs() []llm.ToolSpec {
	sent := a.Deferral.Sent(a.Tools)
	specs := make([]llm.ToolSpec, 0, len(sent))
	for _, t := range sent {
		s := t.Spec()
		specs = append(specs, llm.ToolSpec{Name: t.Name(), Description: s.Description, InputSchema: s.InputSchema})
	}
	return specs
}

func (a *Agent) record(m llm.Message) error {
	return a.recordInfo(m, MessageInfo{UUID: NewUUID()})
}

// recordInfo records m with what is known of it, when the Recorder keeps that.
func (a *Agent) recordInfo(m llm.Message, info MessageInfo) error {
	if a.Recorder == nil {
		return nil
	}
	var err error
	if ir, ok := a.Recorder.(InfoRecorder); ok {
		err = ir.AppendMessageInfo(m, info)
	} else {
		err = a.Recorder.AppendMessage(m)
	}
	if err != nil {
		return fmt.Errorf("recording the session: %w", err)
	}
	return nil
}

// withContext adds the context hooks returned to a prompt, as text blocks after it.
func withContext(m llm.Message, label string, texts []string) llm.Message {
	if len(texts) == 0 {
		return m
	}
	m.Content = slices.Clone(m.Content)
	for _, t := range texts {
		m.Content = append(m.Content, llm.Text(label+" additional context: "+t))
	}
	return m
}
