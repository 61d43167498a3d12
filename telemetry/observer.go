package telemetry

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	otellog "go.opentelemetry.io/otel/log"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/toolcall"
	"github.com/reinsdev/reins/tracecontext"
)

// maxDetail caps a prompt, tool input or error text put in an event or span when the person
// asked for them (OTEL_LOG_USER_PROMPTS, OTEL_LOG_TOOL_DETAILS).
const maxDetail = 4096

// observer is the agent.Observer of a session with telemetry on.
type observer struct{ t *Telemetry }

type promptIDKey struct{}

// Run opens the run's span (invoke_agent) and sends user_prompt.
func (o *observer) Run(ctx context.Context, prompt llm.Message) (context.Context, func(*agent.Result)) {
	t := o.t
	pid := newID()
	ctx = context.WithValue(ctx, promptIDKey{}, pid)
	text := prompt.Text()
	attrs := []attribute.KeyValue{attribute.Int("prompt_length", len(text))}
	if t.cfg.LogUserPrompts {
		attrs = append(attrs, attribute.String("prompt", clip(text)))
	}
	t.emit(ctx, eventUserPrompt, attrs...)
	ctx, span := t.start(ctx, spanInvokeAgent+" reins", trace.SpanKindInternal,
		attribute.String(genAIOperation, spanInvokeAgent), attribute.String(genAIAgentName, "reins"),
		attribute.String(genAIConversation, t.opts.SessionID), attribute.String(attrPromptID, pid))
	if span != nil && t.cfg.LogUserPrompts {
		span.SetAttributes(attribute.String(genAIInput, clip(text)))
	}
	return ctx, func(r *agent.Result) {
		if span == nil {
			return
		}
		span.SetAttributes(attribute.Int(genAIInputTokens, r.Usage.InputTokens), attribute.Int(genAIOutputTokens, r.Usage.OutputTokens),
			attribute.Int("reins.turns", r.NumTurns), attribute.Float64("reins.cost_usd", r.CostUSD))
		if r.IsError {
			span.SetStatus(codes.Error, r.Subtype)
		}
		span.End()
	}
}

// Request opens the request's span (chat <model>) and sends api_request or api_error, with
// the token and cost metrics.
func (o *observer) Request(ctx context.Context, req *llm.Request) (context.Context, func(*llm.Response, error)) {
	t := o.t
	begin := time.Now()
	ctx, span := t.start(ctx, spanChat+" "+req.Model, trace.SpanKindClient,
		attribute.String(genAIOperation, spanChat), attribute.String(genAIProvider, t.opts.Provider),
		attribute.String(genAIReqModel, req.Model), attribute.Int(genAIReqMaxTokens, req.MaxTokens))
	return ctx, func(resp *llm.Response, err error) {
		ms := time.Since(begin).Milliseconds()
		if err != nil {
			t.apiError(ctx, span, req.Model, ms, err)
			return
		}
		t.apiRequest(ctx, span, req.Model, ms, resp)
	}
}

func (t *Telemetry) apiRequest(ctx context.Context, span trace.Span, reqModel string, ms int64, resp *llm.Response) {
	model := reqModel
	if resp.Model != "" {
		model = resp.Model
	}
	u := resp.Usage
	cost, _ := agent.EstimateCost(model, u)
	t.emit(ctx, eventAPIRequest, attribute.String(attrModel, model), attribute.Float64("cost_usd", cost),
		attribute.Int64("duration_ms", ms), attribute.Int("input_tokens", u.InputTokens), attribute.Int("output_tokens", u.OutputTokens),
		attribute.Int("cache_read_tokens", u.CacheReadInputTokens), attribute.Int("cache_creation_tokens", u.CacheCreationInputTokens))
	t.inst.usage(ctx, t.common, model, u, cost)
	if span == nil {
		return
	}
	span.SetAttributes(attribute.String(genAIRespModel, model), attribute.String(genAIRespID, resp.ID),
		attribute.StringSlice(genAIFinish, []string{string(resp.StopReason)}),
		attribute.Int(genAIInputTokens, u.InputTokens), attribute.Int(genAIOutputTokens, u.OutputTokens))
	span.End()
}

func (t *Telemetry) apiError(ctx context.Context, span trace.Span, model string, ms int64, err error) {
	attrs := []attribute.KeyValue{attribute.String(attrModel, model), attribute.String("error", clip(err.Error())),
		attribute.Int64("duration_ms", ms)}
	var apiErr *llm.APIError
	if errors.As(err, &apiErr) && apiErr.StatusCode != 0 {
		attrs = append(attrs, attribute.String("status_code", strconv.Itoa(apiErr.StatusCode)))
	}
	t.emit(ctx, eventAPIError, attrs...)
	if span == nil {
		return
	}
	span.SetAttributes(attribute.String(errorType, errType(err, apiErr)))
	span.SetStatus(codes.Error, clip(err.Error()))
	span.End()
}

func errType(err error, apiErr *llm.APIError) string {
	switch {
	case errors.Is(err, context.Canceled):
		return "cancelled"
	case apiErr != nil && apiErr.StatusCode != 0:
		return strconv.Itoa(apiErr.StatusCode)
	}
	return "_OTHER"
}

// Call opens the call's span (execute_tool <name>) and attaches a permission trace, from which
// the deciding step is read when the call ends.
func (o *observer) Call(ctx context.Context, c toolcall.Call) (context.Context, func(toolcall.Outcome)) {
	t := o.t
	begin := time.Now()
	name := c.Tool.Name()
	tr := &permission.Trace{}
	ctx = permission.WithTrace(ctx, tr)
	ctx, span := t.start(ctx, spanExecuteTool+" "+name, trace.SpanKindInternal,
		attribute.String(genAIOperation, spanExecuteTool), attribute.String(genAIToolName, name),
		attribute.String(genAIToolCallID, c.ID), attribute.String(genAIToolType, "function"))
	if span != nil && t.cfg.LogToolDetails {
		span.SetAttributes(attribute.String(genAIToolArgs, clip(string(c.Raw))))
	}
	var mode permission.Mode
	if c.Permissions != nil {
		mode = c.Permissions.Mode()
	}
	return ctx, func(out toolcall.Outcome) {
		t.callEnded(ctx, span, callInfo{name: name, id: c.ID, mode: mode, raw: c.Raw, begin: begin, steps: tr.Steps()}, out)
	}
}

type callInfo struct {
	name, id string
	mode     permission.Mode
	raw      json.RawMessage
	begin    time.Time
	steps    []permission.Step
}

// callEnded sends tool_decision (when the call was decided) and tool_result, counts the
// decision and the lines changed, and ends the span.
func (t *Telemetry) callEnded(ctx context.Context, span trace.Span, ci callInfo, out toolcall.Outcome) {
	decided := out.Decision.Behavior != permission.Passthrough
	var why []attribute.KeyValue
	if decided {
		why = t.decisionAttrs(ci, out.Decision)
		t.emit(ctx, eventToolDecision, append([]attribute.KeyValue{attribute.String(attrToolName, ci.name),
			attribute.String(attrReinsToolUseID, ci.id)}, why...)...)
		t.inst.decision(ctx, t.common, out.Decision, ci.name)
	}
	ok := out.Stage == toolcall.Done && !out.Result.IsError
	attrs := []attribute.KeyValue{attribute.String(attrToolName, ci.name), attribute.String(attrReinsToolUseID, ci.id),
		attribute.Bool("success", ok), attribute.Int64("duration_ms", time.Since(ci.begin).Milliseconds()),
		attribute.String(attrReinsStage, stageName(out.Stage))}
	if decided {
		attrs = append(attrs, attribute.String(attrDecision, acceptReject(out.Decision.Behavior)), attribute.String(attrSource, sourceOf(out.Decision)))
	}
	if t.cfg.LogToolDetails {
		attrs = append(attrs, attribute.String("tool_parameters", clip(string(ci.raw))))
		if out.Failure != "" {
			attrs = append(attrs, attribute.String("error", clip(out.Failure)))
		}
	}
	t.emit(ctx, eventToolResult, attrs...)
	if ok {
		t.inst.lines(ctx, t.common, ci.name, out)
	}
	if span == nil {
		return
	}
	span.SetAttributes(why...)
	span.SetAttributes(attribute.String(attrReinsStage, stageName(out.Stage)))
	if !ok {
		// A call that ran and returned an error result failed as a tool; any other stage
		// says how far the call got.
		kind := stageName(out.Stage)
		if out.Stage == toolcall.Done {
			kind = "tool_error"
		}
		span.SetAttributes(attribute.String(errorType, kind))
		span.SetStatus(codes.Error, kind)
	}
	span.End()
}

// decisionAttrs says why a call was decided as it was: Claude Code's decision and source, and
// Reins' rule, its source and file:line, the step, the mode and the policy version.
func (t *Telemetry) decisionAttrs(ci callInfo, d permission.Decision) []attribute.KeyValue {
	policy := t.opts.PolicyVersion
	if d.By != nil && d.By.PolicyVersion != "" {
		policy = d.By.PolicyVersion
	}
	attrs := []attribute.KeyValue{
		attribute.String(attrDecision, acceptReject(d.Behavior)),
		attribute.String(attrSource, sourceOf(d)),
		attribute.String(attrReinsDecision, d.Behavior.String()),
		attribute.String(attrReinsMode, string(ci.mode)),
		attribute.String(attrReinsPolicy, policy),
		attribute.String(attrReinsStep, decidingStep(ci.steps)),
	}
	if d.Reason != nil {
		attrs = append(attrs, attribute.String(attrReinsReasonType, string(d.Reason.Type)))
	}
	if by := d.By; by != nil {
		attrs = append(attrs, attribute.String(attrReinsDecidedBy, string(by.Kind)))
		for _, kv := range [][2]string{{attrReinsRule, by.Rule}, {attrReinsRuleSource, by.RuleSource}, {attrReinsRuleOrigin, by.RuleOrigin},
			{attrReinsFrontEnd, by.FrontEnd}, {attrReinsHook, by.Hook}, {attrReinsSetting, by.Setting}} {
			if kv[1] != "" {
				attrs = append(attrs, attribute.String(kv[0], kv[1]))
			}
		}
	}
	return attrs
}

// decidingRule is the rule behind a decision (permission.Decision.DecidingRule).
func decidingRule(d permission.Decision) *permission.Rule { return d.DecidingRule() }

// decidingStep is the last step of the trace that concluded allow, ask or deny: the one whose
// answer stood (a later step, such as a headless ask turned into a deny, overrides an earlier).
func decidingStep(steps []permission.Step) string {
	for i := len(steps) - 1; i >= 0; i-- {
		switch steps[i].Outcome {
		case "allow", "ask", "deny":
			return steps[i].Name
		}
	}
	return ""
}

// acceptReject is Claude Code's decision value.
func acceptReject(b permission.Behavior) string {
	if b == permission.Allow {
		return "accept"
	}
	return "reject"
}

// sourceOf is Claude Code's decision source: "config" for the rules and the mode, "hook",
// "user" for an answer, "classifier" for auto mode's.
func sourceOf(d permission.Decision) string {
	if d.By != nil {
		switch d.By.Kind {
		case permission.DecidedByHook:
			return "hook"
		case permission.DecidedByPerson:
			return "user"
		case permission.DecidedByClassifier:
			return "classifier"
		}
		return "config"
	}
	if d.Reason == nil {
		return "config"
	}
	switch d.Reason.Type {
	case permission.ReasonHook:
		return "hook"
	case permission.ReasonPermissionPromptTool:
		return "user"
	case permission.ReasonClassifier:
		return "classifier"
	}
	return "config"
}

func stageName(s toolcall.Stage) string {
	switch s {
	case toolcall.Cancelled:
		return "cancelled"
	case toolcall.Invalid:
		return "invalid"
	case toolcall.Denied:
		return "denied"
	case toolcall.Aborted:
		return "aborted"
	case toolcall.Failed:
		return "failed"
	case toolcall.Done:
		return "done"
	}
	return "unknown"
}

// start opens a span under ctx's span (or the trace reins was started in) and puts its trace
// context where the processes started under it find it. Without a tracer it returns a nil span.
func (t *Telemetry) start(ctx context.Context, name string, kind trace.SpanKind, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	if t.tracer == nil {
		return ctx, nil
	}
	t.emitted[Traces].Add(1)
	ctx, span := t.tracer.Start(t.parent(ctx), name, trace.WithSpanKind(kind), trace.WithAttributes(append(attrs, t.common...)...))
	return withTraceContext(ctx), span
}

// parent is ctx, under the remote parent when ctx has no span of its own.
func (t *Telemetry) parent(ctx context.Context) context.Context {
	if t.remote.IsValid() && !trace.SpanContextFromContext(ctx).IsValid() {
		return trace.ContextWithRemoteSpanContext(ctx, t.remote)
	}
	return ctx
}

func withTraceContext(ctx context.Context) context.Context {
	c := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, c)
	return tracecontext.With(ctx, c.Get("traceparent"), c.Get("tracestate"))
}

// emit sends one event: Claude Code's shape (the prefixed name as event name and body,
// event.name and event.timestamp attributes) with the session's common attributes.
func (t *Telemetry) emit(ctx context.Context, name string, attrs ...attribute.KeyValue) {
	if t.logger == nil {
		return
	}
	t.emitted[Logs].Add(1)
	now := time.Now()
	var r otellog.Record
	r.SetEventName(eventPrefix + name)
	r.SetBody(attribute.StringValue(eventPrefix + name))
	r.SetTimestamp(now)
	r.SetSeverity(otellog.SeverityInfo)
	kv := make([]attribute.KeyValue, 0, len(attrs)+len(t.common)+3)
	kv = append(kv, attribute.String(attrEventName, name), attribute.String(attrEventTime, now.UTC().Format(time.RFC3339Nano)))
	if pid, ok := ctx.Value(promptIDKey{}).(string); ok {
		kv = append(kv, attribute.String(attrPromptID, pid))
	}
	kv = append(kv, t.common...)
	r.AddAttributes(append(kv, attrs...)...)
	t.logger.Emit(ctx, r)
}

func clip(s string) string {
	if len(s) <= maxDetail {
		return s
	}
	cut := maxDetail
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// lineCount counts the lines of a text as an editor shows them.
func lineCount(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// instruments are the session's metrics.
type instruments struct {
	sessions, tokens, lineCount, codeEdit, decisions metric.Int64Counter
	cost                                             metric.Float64Counter
}

func (in *instruments) init(m metric.Meter) error {
	var err, e error
	in.sessions, e = m.Int64Counter(metricSessions, metric.WithDescription("Sessions started"), metric.WithUnit("{session}"))
	err = errors.Join(err, e)
	in.tokens, e = m.Int64Counter(metricTokens, metric.WithDescription("Tokens used"), metric.WithUnit("tokens"))
	err = errors.Join(err, e)
	in.cost, e = m.Float64Counter(metricCost, metric.WithDescription("Estimated cost"), metric.WithUnit("USD"))
	err = errors.Join(err, e)
	in.lineCount, e = m.Int64Counter(metricLines, metric.WithDescription("Lines of code added and removed"), metric.WithUnit("{line}"))
	err = errors.Join(err, e)
	in.codeEdit, e = m.Int64Counter(metricCodeEdit, metric.WithDescription("Decisions on code-editing tools"), metric.WithUnit("{decision}"))
	err = errors.Join(err, e)
	in.decisions, e = m.Int64Counter(metricDecisions, metric.WithDescription("Permission decisions by outcome and source"), metric.WithUnit("{decision}"))
	return errors.Join(err, e)
}

func (in *instruments) usage(ctx context.Context, common []attribute.KeyValue, model string, u llm.Usage, cost float64) {
	if in.tokens == nil {
		return
	}
	for _, x := range []struct {
		typ string
		n   int
	}{{"input", u.InputTokens}, {"output", u.OutputTokens}, {"cacheRead", u.CacheReadInputTokens}, {"cacheCreation", u.CacheCreationInputTokens}} {
		in.tokens.Add(ctx, int64(x.n), metric.WithAttributes(append(common, attribute.String(attrType, x.typ), attribute.String(attrModel, model))...))
	}
	in.cost.Add(ctx, cost, metric.WithAttributes(append(common, attribute.String(attrModel, model))...))
}

var codeEditTools = map[string]bool{"Edit": true, "Write": true, "NotebookEdit": true, "MultiEdit": true}

func (in *instruments) decision(ctx context.Context, common []attribute.KeyValue, d permission.Decision, name string) {
	if in.decisions == nil {
		return
	}
	ruleSource := ""
	if r := decidingRule(d); r != nil {
		ruleSource = r.Source.String()
	}
	in.decisions.Add(ctx, 1, metric.WithAttributes(append(common, attribute.String(attrReinsDecision, d.Behavior.String()),
		attribute.String(attrSource, sourceOf(d)), attribute.String(attrReinsRuleSource, ruleSource))...))
	if codeEditTools[name] {
		in.codeEdit.Add(ctx, 1, metric.WithAttributes(append(common, attribute.String("tool", name),
			attribute.String(attrDecision, acceptReject(d.Behavior)), attribute.String(attrSource, sourceOf(d)))...))
	}
}

// lines counts the lines an Edit or a Write changed, from its input: an edit removes its
// old_string's lines and adds its new_string's (times its replacements), a write adds its
// content's (what it replaced is not known here, so a rewrite counts only as added lines).
func (in *instruments) lines(ctx context.Context, common []attribute.KeyValue, name string, out toolcall.Outcome) {
	if in.lineCount == nil || !codeEditTools[name] {
		return
	}
	var f struct {
		Old     string `json:"old_string"`
		New     string `json:"new_string"`
		Content string `json:"content"`
	}
	var o struct {
		Replacements int `json:"replacements"`
	}
	b, err := json.Marshal(out.Input)
	if err != nil || json.Unmarshal(b, &f) != nil {
		return
	}
	if b, err := json.Marshal(out.Result.Output); err == nil {
		_ = json.Unmarshal(b, &o)
	}
	times := max(o.Replacements, 1)
	added, removed := lineCount(f.New)*times+lineCount(f.Content), lineCount(f.Old)*times
	if added > 0 {
		in.lineCount.Add(ctx, int64(added), metric.WithAttributes(append(common, attribute.String(attrType, "added"))...))
	}
	if removed > 0 {
		in.lineCount.Add(ctx, int64(removed), metric.WithAttributes(append(common, attribute.String(attrType, "removed"))...))
	}
}
