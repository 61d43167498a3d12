package telemetry

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/toolcall"
	"github.com/reinsdev/reins/tracecontext"
)

// memLogs keeps every exported record.
type memLogs struct {
	mu   sync.Mutex
	recs []sdklog.Record
}

func (m *memLogs) Export(_ context.Context, recs []sdklog.Record) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range recs {
		m.recs = append(m.recs, r.Clone())
	}
	return nil
}
func (m *memLogs) Shutdown(context.Context) error   { return nil }
func (m *memLogs) ForceFlush(context.Context) error { return nil }

// events returns the attributes of each exported event named name.
func (m *memLogs) events(name string) []map[string]string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []map[string]string
	for _, r := range m.recs {
		if r.EventName() != eventPrefix+name {
			continue
		}
		a := map[string]string{}
		r.WalkAttributes(func(kv attribute.KeyValue) bool {
			a[string(kv.Key)] = kv.Value.String()
			return true
		})
		out = append(out, a)
	}
	return out
}

type fixture struct {
	tel    *Telemetry
	logs   *memLogs
	spans  *tracetest.InMemoryExporter
	reader *sdkmetric.ManualReader
}

func newFixture(t *testing.T, cfg Config) *fixture {
	t.Helper()
	f := &fixture{logs: &memLogs{}, spans: tracetest.NewInMemoryExporter(), reader: sdkmetric.NewManualReader()}
	cfg.Enabled = true
	cfg.LogsInterval, cfg.MetricInterval = DefaultLogsInterval, DefaultMetricInterval
	tel, err := start(context.Background(), cfg, Options{Version: "v-test", SessionID: "s-1", Provider: "anthropic", PolicyVersion: "p-7",
		Getenv: func(string) string { return "" }}, sinks{logs: f.logs, spans: f.spans, metrics: f.reader})
	if err != nil {
		t.Fatal(err)
	}
	f.tel = tel
	t.Cleanup(func() { tel.Shutdown(context.Background()) })
	return f
}

// flush exports what is queued (Shutdown would also empty the in-memory span exporter).
func (f *fixture) flush(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	if f.tel.traces != nil {
		if err := f.tel.traces.ForceFlush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if f.tel.logs != nil {
		if err := f.tel.logs.ForceFlush(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// metrics collects the metrics now (before Shutdown, which stops the reader).
func (f *fixture) metrics(t *testing.T) map[string]metricdata.Aggregation {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := f.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]metricdata.Aggregation{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			out[m.Name] = m.Data
		}
	}
	return out
}

type echoIn struct {
	Cmd string `json:"cmd"`
}

// echoTool records the trace context its call ran in.
func echoTool(seen *string) tool.Tool {
	return tool.Build(tool.Def[echoIn]{Name: "Echo", Prompt: "echo", Call: func(ctx context.Context, in echoIn, _ *tool.Env) (tool.Result, error) {
		*seen, _ = tracecontext.From(ctx)
		return tool.Result{Content: []tool.Content{tool.Text(in.Cmd)}}, nil
	}})
}

var allowEcho = permission.Rule{Value: permission.ParseRule("Echo"), Behavior: permission.Allow, Source: permission.SourceUser}

func denyRule() permission.Rule {
	return permission.Rule{Value: permission.ParseRule("Echo"), Behavior: permission.Deny, Source: permission.SourceProject,
		Origin: permission.Origin{File: "/p/.claude/settings.json", Line: 4, Col: 7}}
}

// runCall takes one call through a real pipeline under the observer, as the agent does.
func runCall(t *testing.T, obs agent.Observer, ctx context.Context, tl tool.Tool, input string, rules []permission.Rule) toolcall.Outcome {
	t.Helper()
	return runCallIn(t, obs, ctx, tl, input, newContext(t, rules))
}

func newContext(t *testing.T, rules []permission.Rule) *permission.Context {
	t.Helper()
	pc, err := permission.New(permission.Config{Cwd: t.TempDir(), Home: t.TempDir(), Rules: rules, Mode: permission.ModeDontAsk})
	if err != nil {
		t.Fatal(err)
	}
	return pc
}

func runCallIn(t *testing.T, obs agent.Observer, ctx context.Context, tl tool.Tool, input string, pc *permission.Context) toolcall.Outcome {
	t.Helper()
	in, err := toolcall.Decode(tl, json.RawMessage(input))
	if err != nil {
		t.Fatal(err)
	}
	c := toolcall.Call{Tool: tl, ID: "toolu_1", Input: in, Raw: json.RawMessage(input), Permissions: pc, Env: &tool.Env{}}
	ctx, end := obs.Call(ctx, c)
	p := toolcall.Pipeline{Engine: &permission.Engine{}}
	out := p.Run(ctx, c)
	end(out)
	return out
}

func TestDeniedCallNamesTheRule(t *testing.T) {
	f := newFixture(t, Config{})
	var seen string
	out := runCall(t, f.tel.Observer(), context.Background(), echoTool(&seen), `{"cmd":"rm -rf /"}`, []permission.Rule{denyRule()})
	if out.Stage != toolcall.Denied {
		t.Fatalf("stage %v, want denied", out.Stage)
	}
	f.tel.Shutdown(context.Background())
	ev := f.logs.events(eventToolDecision)
	if len(ev) != 1 {
		t.Fatalf("%d tool_decision events, want 1", len(ev))
	}
	want := map[string]string{
		attrToolName: "Echo", attrDecision: "reject", attrSource: "config", attrReinsDecision: "deny",
		attrReinsRule: "Echo", attrReinsRuleSource: "projectSettings", attrReinsRuleOrigin: "/p/.claude/settings.json:4:7",
		attrReinsMode: "dontAsk", attrReinsPolicy: "p-7", attrSessionID: "s-1", attrEventName: "tool_decision",
	}
	for k, v := range want {
		if ev[0][k] != v {
			t.Errorf("tool_decision %s = %q, want %q", k, ev[0][k], v)
		}
	}
	if ev[0][attrReinsStep] == "" {
		t.Errorf("tool_decision has no step: %v", ev[0])
	}
}

func TestSpansNestAndReachTheCall(t *testing.T) {
	f := newFixture(t, Config{})
	obs := f.tel.Observer()
	ctx, endRun := obs.Run(context.Background(), llm.UserText("list files"))
	rctx, endReq := obs.Request(ctx, &llm.Request{Model: "claude-sonnet-4-5", MaxTokens: 100})
	endReq(&llm.Response{Model: "claude-sonnet-4-5", StopReason: "tool_use", Usage: llm.Usage{InputTokens: 10, OutputTokens: 5}}, nil)
	if p, _ := tracecontext.From(rctx); p == "" {
		t.Error("the request's context carries no trace context")
	}
	var seen string
	runCall(t, obs, ctx, echoTool(&seen), `{"cmd":"ls"}`, []permission.Rule{allowEcho})
	endRun(&agent.Result{NumTurns: 1})
	f.flush(t)

	spans := f.spans.GetSpans()
	byName := map[string]tracetest.SpanStub{}
	for _, s := range spans {
		byName[s.Name] = s
	}
	run, req, call := byName["invoke_agent reins"], byName["chat claude-sonnet-4-5"], byName["execute_tool Echo"]
	if !run.SpanContext.IsValid() || !req.SpanContext.IsValid() || !call.SpanContext.IsValid() {
		t.Fatalf("missing spans; got %v", slices.Collect(func(yield func(string) bool) {
			for _, s := range spans {
				if !yield(s.Name) {
					return
				}
			}
		}))
	}
	if req.Parent.SpanID() != run.SpanContext.SpanID() || call.Parent.SpanID() != run.SpanContext.SpanID() {
		t.Errorf("request's parent %s, call's parent %s; want the run's span %s", req.Parent.SpanID(), call.Parent.SpanID(), run.SpanContext.SpanID())
	}
	want := "00-" + call.SpanContext.TraceID().String() + "-" + call.SpanContext.SpanID().String() + "-01"
	if seen != want {
		t.Errorf("the tool ran with traceparent %q, want the execute_tool span's %q", seen, want)
	}
	attrs := map[string]string{}
	for _, a := range call.Attributes {
		attrs[string(a.Key)] = a.Value.String()
	}
	if attrs[genAIOperation] != "execute_tool" || attrs[genAIToolName] != "Echo" || attrs[genAIToolCallID] != "toolu_1" {
		t.Errorf("execute_tool attributes %v", attrs)
	}
}

func TestRemoteParent(t *testing.T) {
	const parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	f := &fixture{spans: tracetest.NewInMemoryExporter()}
	var err error
	f.tel, err = start(context.Background(), Config{Enabled: true, LogsInterval: DefaultLogsInterval}, Options{
		Getenv: func(k string) string {
			if k == "TRACEPARENT" {
				return parent
			}
			return ""
		}}, sinks{spans: f.spans})
	if err != nil {
		t.Fatal(err)
	}
	_, end := f.tel.Observer().Run(context.Background(), llm.UserText("hi"))
	end(&agent.Result{})
	f.flush(t)
	spans := f.spans.GetSpans()
	if len(spans) != 1 || spans[0].Parent.TraceID().String() != "4bf92f3577b34da6a3ce929d0e0e4736" || spans[0].Parent.SpanID().String() != "00f067aa0ba902b7" {
		t.Fatalf("the run's span is not a child of TRACEPARENT: %+v", spans)
	}
}

func TestRedaction(t *testing.T) {
	const secretPrompt, secretInput = "my password is hunter2", "cat /home/me/.ssh/id_rsa"
	tests := []struct {
		name          string
		prompts, tool bool
	}{
		{"default leaves both out", false, false},
		{"prompts only", true, false},
		{"tool details only", false, true},
		{"both", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, Config{LogUserPrompts: tt.prompts, LogToolDetails: tt.tool})
			obs := f.tel.Observer()
			ctx, end := obs.Run(context.Background(), llm.UserText(secretPrompt))
			var seen string
			runCall(t, obs, ctx, echoTool(&seen), `{"cmd":"`+secretInput+`"}`, []permission.Rule{allowEcho})
			end(&agent.Result{})
			f.flush(t)
			var all strings.Builder
			for _, name := range []string{eventUserPrompt, eventToolResult, eventToolDecision} {
				for _, ev := range f.logs.events(name) {
					fmt.Fprint(&all, ev)
				}
			}
			for _, s := range f.spans.GetSpans() {
				fmt.Fprint(&all, s.Attributes)
			}
			if got := strings.Contains(all.String(), secretPrompt); got != tt.prompts {
				t.Errorf("prompt exported: %v, want %v", got, tt.prompts)
			}
			if got := strings.Contains(all.String(), secretInput); got != tt.tool {
				t.Errorf("tool input exported: %v, want %v", got, tt.tool)
			}
			up := f.logs.events(eventUserPrompt)
			if len(up) != 1 || up[0]["prompt_length"] != fmt.Sprint(len(secretPrompt)) {
				t.Errorf("user_prompt events %v", up)
			}
		})
	}
}

type writeIn struct {
	FilePath string `json:"file_path"`
	Content  string `json:"content"`
}

func TestMetrics(t *testing.T) {
	f := newFixture(t, Config{})
	obs := f.tel.Observer()
	f.tel.SessionStarted(context.Background())
	_, endReq := obs.Request(context.Background(), &llm.Request{Model: "claude-sonnet-4-5"})
	endReq(&llm.Response{Usage: llm.Usage{InputTokens: 1000, OutputTokens: 200, CacheReadInputTokens: 30}}, nil)
	write := tool.Build(tool.Def[writeIn]{Name: "Write", Prompt: "w", Call: func(context.Context, writeIn, *tool.Env) (tool.Result, error) {
		return tool.Result{Content: []tool.Content{tool.Text("ok")}}, nil
	}})
	allow := permission.Rule{Value: permission.ParseRule("Write"), Behavior: permission.Allow, Source: permission.SourceUser}
	runCall(t, obs, context.Background(), write, `{"file_path":"a.go","content":"a\nb\nc\n"}`, []permission.Rule{allow})
	var seen string
	runCall(t, obs, context.Background(), echoTool(&seen), `{"cmd":"rm x"}`, []permission.Rule{denyRule()})
	m := f.metrics(t)
	f.tel.Shutdown(context.Background())

	sum := func(name string, match map[string]string) int64 {
		var n int64
		s, ok := m[name].(metricdata.Sum[int64])
		if !ok {
			t.Fatalf("metric %s missing or not an int sum: %T", name, m[name])
		}
	points:
		for _, p := range s.DataPoints {
			for k, v := range match {
				if got, _ := p.Attributes.Value(attribute.Key(k)); got.String() != v {
					continue points
				}
			}
			n += p.Value
		}
		return n
	}
	checks := []struct {
		name  string
		match map[string]string
		want  int64
	}{
		{metricSessions, nil, 1},
		{metricTokens, map[string]string{attrType: "input", attrModel: "claude-sonnet-4-5"}, 1000},
		{metricTokens, map[string]string{attrType: "cacheRead"}, 30},
		{metricLines, map[string]string{attrType: "added"}, 3},
		{metricDecisions, map[string]string{attrReinsDecision: "allow", attrReinsRuleSource: "userSettings"}, 1},
		{metricDecisions, map[string]string{attrReinsDecision: "deny", attrReinsRuleSource: "projectSettings"}, 1},
		{metricCodeEdit, map[string]string{"tool": "Write", attrDecision: "accept"}, 1},
	}
	for _, c := range checks {
		if got := sum(c.name, c.match); got != c.want {
			t.Errorf("%s %v = %d, want %d", c.name, c.match, got, c.want)
		}
	}
	if cost, ok := m[metricCost].(metricdata.Sum[float64]); !ok || len(cost.DataPoints) != 1 || cost.DataPoints[0].Value <= 0 {
		t.Errorf("cost metric %+v", m[metricCost])
	}
}
