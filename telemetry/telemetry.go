package telemetry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	otellog "go.opentelemetry.io/otel/log"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/built"
)

// Options are what the session tells telemetry about itself.
type Options struct {
	// Version is reins' version (app.version, service.version).
	Version string
	// SessionID is the session's id (session.id on everything).
	SessionID string
	// Provider names the model API (gen_ai.provider.name): "anthropic", "openai", …
	Provider string
	// PolicyVersion is the version of the policy the session decides under (reins.policy.version
	// on every decision); empty when no signed policy bundle applies.
	PolicyVersion string
	// Console is where the console exporters write; nil is standard error (standard output
	// carries -p's answer).
	Console io.Writer
	// ShutdownTimeout bounds Shutdown; zero is DefaultShutdownTimeout.
	ShutdownTimeout time.Duration
	// Getenv reads TRACEPARENT and TRACESTATE: a reins started inside a trace joins it. Nil is
	// os.Getenv.
	Getenv func(string) string
}

// DefaultShutdownTimeout bounds the last export at exit: a collector that is down or slow
// delays reins' exit by at most this much.
const DefaultShutdownTimeout = 2 * time.Second

// Queue bounds: past them a record is dropped (and counted), never waited for.
const (
	maxQueue = 2048
	maxBatch = 512
)

// Telemetry is a session's telemetry. A nil *Telemetry is telemetry off: every method is a
// no-op and [Telemetry.Observer] is nil.
type Telemetry struct {
	cfg  Config
	opts Options

	logs    *sdklog.LoggerProvider
	traces  *sdktrace.TracerProvider
	metrics *sdkmetric.MeterProvider

	logger otellog.Logger
	tracer trace.Tracer
	inst   instruments
	// remote is the span context reins was started under (TRACEPARENT), if any.
	remote trace.SpanContext
	common []attribute.KeyValue

	counts map[Signal]*counts
	// emitted counts the log records and spans handed to the SDK: what was neither sent nor
	// failed by the end was dropped from a full queue or still queued at the bound.
	emitted   map[Signal]*atomic.Int64
	exporters map[Signal]int
	handled   atomic.Int64
	firstErr  atomic.Pointer[string]
	shutOnce  sync.Once
	report    Report
}

// Start builds the exporters and providers cfg asks for. With telemetry off it returns nil and
// no error. Nothing is sent at start: the OTLP exporters connect on their first export, so a
// collector that is down costs the start nothing.
func Start(ctx context.Context, cfg Config, opts Options) (*Telemetry, error) {
	if !cfg.Enabled {
		return nil, nil
	}
	return start(ctx, cfg, opts, sinks{})
}

// sinks replace the configured exporters in tests.
type sinks struct {
	logs    sdklog.Exporter
	spans   sdktrace.SpanExporter
	metrics sdkmetric.Reader
}

func start(ctx context.Context, cfg Config, opts Options, s sinks) (_ *Telemetry, err error) {
	built.Mark(built.Telemetry)
	if opts.Console == nil {
		opts.Console = os.Stderr
	}
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	t := &Telemetry{cfg: cfg, opts: opts, counts: map[Signal]*counts{Logs: {}, Metrics: {}, Traces: {}},
		emitted: map[Signal]*atomic.Int64{Logs: {}, Traces: {}}, exporters: map[Signal]int{}}
	defer func() {
		if err != nil {
			t.shutdown(context.Background())
		}
	}()
	res, err := t.resource()
	if err != nil {
		return nil, err
	}
	if err := t.startLogs(ctx, res, s.logs); err != nil {
		return nil, err
	}
	if err := t.startTraces(ctx, res, s.spans); err != nil {
		return nil, err
	}
	if err := t.startMetrics(ctx, res, s.metrics); err != nil {
		return nil, err
	}
	t.common = []attribute.KeyValue{attribute.String(attrSessionID, opts.SessionID), attribute.String(attrAppVersion, opts.Version)}
	t.remote = remoteParent(opts.Getenv)
	// The SDK reports what it drops and fails through the global handler; counted, never printed
	// over the session's output.
	otel.SetErrorHandler(otel.ErrorHandlerFunc(t.handle))
	otel.SetLogger(logr.Discard())

	return t, nil
}

func (t *Telemetry) resource() (*resource.Resource, error) {
	attrs := []attribute.KeyValue{attribute.String("service.name", "reins"), attribute.String("service.version", t.opts.Version)}
	for k, v := range t.cfg.Resource {
		attrs = append(attrs, attribute.String(k, v))
	}
	return resource.NewSchemaless(attrs...), nil
}

func (t *Telemetry) startLogs(ctx context.Context, res *resource.Resource, sink sdklog.Exporter) error {
	var procs []sdklog.LoggerProviderOption
	add := func(e sdklog.Exporter) {
		t.exporters[Logs]++
		procs = append(procs, sdklog.WithProcessor(sdklog.NewBatchProcessor(countingLogs{e, t.counts[Logs]},
			sdklog.WithExportInterval(t.cfg.LogsInterval), sdklog.WithMaxQueueSize(maxQueue), sdklog.WithExportMaxBatchSize(maxBatch),
			sdklog.WithExportTimeout(t.cfg.OTLP[Logs].Timeout+time.Second))))
	}
	if sink != nil {
		add(sink)
	}
	for _, e := range t.cfg.Exporters[Logs] {
		x, err := logExporter(ctx, e, t.cfg.OTLP[Logs], t.opts.Console)
		if err != nil {
			return exporterError(Logs, e, err)
		}
		add(x)
	}
	if len(procs) == 0 {
		return nil
	}
	t.logs = sdklog.NewLoggerProvider(append(procs, sdklog.WithResource(res))...)
	t.logger = t.logs.Logger(instrumentationName)
	return nil
}

func (t *Telemetry) startTraces(ctx context.Context, res *resource.Resource, sink sdktrace.SpanExporter) error {
	opts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res)}
	add := func(e sdktrace.SpanExporter) {
		t.exporters[Traces]++
		opts = append(opts, sdktrace.WithBatcher(countingSpans{e, t.counts[Traces]}, sdktrace.WithBatchTimeout(t.cfg.LogsInterval),
			sdktrace.WithMaxQueueSize(maxQueue), sdktrace.WithMaxExportBatchSize(maxBatch), sdktrace.WithExportTimeout(t.cfg.OTLP[Traces].Timeout+time.Second)))
	}
	n := 0
	if sink != nil {
		add(sink)
		n++
	}
	for _, e := range t.cfg.Exporters[Traces] {
		x, err := spanExporter(ctx, e, t.cfg.OTLP[Traces], t.opts.Console)
		if err != nil {
			return exporterError(Traces, e, err)
		}
		add(x)
		n++
	}
	if n == 0 {
		return nil
	}
	t.traces = sdktrace.NewTracerProvider(opts...)
	t.tracer = t.traces.Tracer(instrumentationName)
	return nil
}

func (t *Telemetry) startMetrics(ctx context.Context, res *resource.Resource, sink sdkmetric.Reader) error {
	opts := []sdkmetric.Option{sdkmetric.WithResource(res)}
	n := 0
	if sink != nil {
		opts = append(opts, sdkmetric.WithReader(sink))
		n++
	}
	for _, e := range t.cfg.Exporters[Metrics] {
		x, err := metricExporter(ctx, e, t.cfg.OTLP[Metrics], t.opts.Console)
		if err != nil {
			return exporterError(Metrics, e, err)
		}
		opts = append(opts, sdkmetric.WithReader(sdkmetric.NewPeriodicReader(countingMetrics{x, t.counts[Metrics]},
			sdkmetric.WithInterval(t.cfg.MetricInterval), sdkmetric.WithTimeout(t.cfg.OTLP[Metrics].Timeout+time.Second))))
		n++
	}
	if n == 0 {
		return nil
	}
	t.metrics = sdkmetric.NewMeterProvider(opts...)
	return t.inst.init(t.metrics.Meter(instrumentationName))
}

// remoteParent is the span context of TRACEPARENT/TRACESTATE, when reins was started inside a
// trace (a CI job, a script that traces).
func remoteParent(getenv func(string) string) trace.SpanContext {
	carrier := propagation.MapCarrier{"traceparent": getenv("TRACEPARENT"), "tracestate": getenv("TRACESTATE")}
	return trace.SpanContextFromContext(propagation.TraceContext{}.Extract(context.Background(), carrier))
}

func (t *Telemetry) handle(err error) {
	t.handled.Add(1)
	msg := err.Error()
	t.firstErr.CompareAndSwap(nil, &msg)
}

// Observer is what the agent calls around runs, requests and calls; nil when telemetry is off,
// so that an agent without telemetry pays nothing.
func (t *Telemetry) Observer() agent.Observer {
	if t == nil {
		return nil
	}
	return &observer{t: t}
}

// SessionStarted counts the session (claude_code.session.count).
func (t *Telemetry) SessionStarted(ctx context.Context) {
	if t == nil || t.inst.sessions == nil {
		return
	}
	t.inst.sessions.Add(ctx, 1, metric.WithAttributes(t.common...))
}

// StartSpan starts a span of reins' own (the session's start-up, which starts the MCP servers)
// and puts its trace context in the returned context, for the processes started under it.
func (t *Telemetry) StartSpan(ctx context.Context, name string) (context.Context, func()) {
	if t == nil || t.tracer == nil {
		return ctx, func() {}
	}
	t.emitted[Traces].Add(1)
	ctx, span := t.tracer.Start(t.parent(ctx), name, trace.WithAttributes(t.common...))
	return withTraceContext(ctx), func() { span.End() }
}

// Report is what telemetry sent and could not send, per signal, for the exit and the debug log.
type Report struct {
	Sent, Failed map[Signal]int64
	// Dropped counts the log records and spans that were never handed to an exporter: a full
	// queue dropped them, or they were still queued when the shutdown's bound ran out.
	Dropped map[Signal]int64
	// Errors counts what the SDK reported (a full queue's dropped records, a failed export);
	// FirstError is the first of them.
	Errors     int64
	FirstError string
	// ShutdownErr is why the last export did not finish within the bound, if it did not.
	ShutdownErr error
}

// Lost reports whether anything was not exported.
func (r Report) Lost() bool {
	for _, n := range r.Failed {
		if n > 0 {
			return true
		}
	}
	for _, n := range r.Dropped {
		if n > 0 {
			return true
		}
	}
	return r.Errors > 0 || r.ShutdownErr != nil
}

func (r Report) String() string {
	var parts []string
	for _, s := range signals {
		if r.Sent[s] > 0 || r.Failed[s] > 0 || r.Dropped[s] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d sent, %d failed, %d dropped", s, r.Sent[s], r.Failed[s], r.Dropped[s]))
		}
	}
	s := "telemetry: " + strings.Join(parts, "; ")
	if len(parts) == 0 {
		s = "telemetry: nothing sent"
	}
	if r.Errors > 0 {
		s += fmt.Sprintf("; %d export errors, the first: %s", r.Errors, r.FirstError)
	}
	if r.ShutdownErr != nil {
		s += "; at exit: " + r.ShutdownErr.Error()
	}
	return s
}

// Shutdown sends what is queued and stops, within Options.ShutdownTimeout whatever the
// collector does, and reports what was sent and lost. Later calls return the same report.
func (t *Telemetry) Shutdown(ctx context.Context) Report {
	if t == nil {
		return Report{}
	}
	t.shutOnce.Do(func() { t.report = t.shutdown(ctx) })
	return t.report
}

func (t *Telemetry) shutdown(ctx context.Context) Report {
	bound := t.opts.ShutdownTimeout
	if bound <= 0 {
		bound = DefaultShutdownTimeout
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), bound)
	defer cancel()
	// The three providers flush at once, so the bound is the whole exit's, not each one's.
	var wg sync.WaitGroup
	errs := make([]error, 3)
	run := func(i int, f func(context.Context) error) {
		wg.Go(func() { errs[i] = f(ctx) })
	}
	if t.traces != nil {
		// Spans first in time: their end is what the logs and metrics describe.
		run(0, t.traces.Shutdown)
	}
	if t.logs != nil {
		run(1, t.logs.Shutdown)
	}
	if t.metrics != nil {
		run(2, t.metrics.Shutdown)
	}
	wg.Wait()
	r := Report{Sent: map[Signal]int64{}, Failed: map[Signal]int64{}, Dropped: map[Signal]int64{}, Errors: t.handled.Load()}
	for s, c := range t.counts {
		r.Sent[s], r.Failed[s] = c.sent.Load(), c.failed.Load()
		if p := c.lastErr.Load(); p != nil && r.FirstError == "" {
			r.FirstError = *p
		}
	}
	for _, s := range []Signal{Logs, Traces} {
		// Each exporter of a signal gets every record.
		r.Dropped[s] = max(0, t.emitted[s].Load()*int64(t.exporters[s])-r.Sent[s]-r.Failed[s])
	}
	if p := t.firstErr.Load(); p != nil {
		r.FirstError = *p
	}
	if err := errors.Join(errs...); err != nil {
		r.ShutdownErr = err
	}
	return r
}
