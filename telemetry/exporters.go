package telemetry

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploggrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploghttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdoutlog"
	"go.opentelemetry.io/otel/exporters/stdout/stdoutmetric"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/reinsdev/reins/built"
)

// The OTLP exporters are built with their retries off: a collector that is down costs one
// failed export per batch (counted in the [Report]), never a minute of retrying that holds the
// batch's memory and delays the exit.

// otlpOptions are the options every OTLP exporter is given, in its own package's option type:
// the export timeout, no retries, and the endpoint and headers when set.
func otlpOptions[O any](o OTLP, timeout func(time.Duration) O, noRetry O, endpoint func(string) O, headers func(map[string]string) O) []O {
	opts := []O{timeout(o.Timeout), noRetry}
	if o.Endpoint != "" {
		opts = append(opts, endpoint(o.Endpoint))
	}
	if len(o.Headers) > 0 {
		opts = append(opts, headers(o.Headers))
	}
	return opts
}

func logExporter(ctx context.Context, e Exporter, o OTLP, console io.Writer) (sdklog.Exporter, error) {
	if e == ExporterConsole {
		return stdoutlog.New(stdoutlog.WithWriter(console))
	}
	if o.Protocol == ProtocolGRPC {
		built.Mark(built.GRPC)
		return otlploggrpc.New(ctx, otlpOptions(o, otlploggrpc.WithTimeout, otlploggrpc.WithRetry(otlploggrpc.RetryConfig{Enabled: false}), otlploggrpc.WithEndpointURL, otlploggrpc.WithHeaders)...)
	}
	return otlploghttp.New(ctx, otlpOptions(o, otlploghttp.WithTimeout, otlploghttp.WithRetry(otlploghttp.RetryConfig{Enabled: false}), otlploghttp.WithEndpointURL, otlploghttp.WithHeaders)...)
}

func spanExporter(ctx context.Context, e Exporter, o OTLP, console io.Writer) (sdktrace.SpanExporter, error) {
	if e == ExporterConsole {
		return stdouttrace.New(stdouttrace.WithWriter(console))
	}
	if o.Protocol == ProtocolGRPC {
		built.Mark(built.GRPC)
		return otlptracegrpc.New(ctx, otlpOptions(o, otlptracegrpc.WithTimeout, otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig{Enabled: false}), otlptracegrpc.WithEndpointURL, otlptracegrpc.WithHeaders)...)
	}
	return otlptracehttp.New(ctx, otlpOptions(o, otlptracehttp.WithTimeout, otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false}), otlptracehttp.WithEndpointURL, otlptracehttp.WithHeaders)...)
}

func metricExporter(ctx context.Context, e Exporter, o OTLP, console io.Writer) (sdkmetric.Exporter, error) {
	if e == ExporterConsole {
		return stdoutmetric.New(stdoutmetric.WithWriter(console))
	}
	if o.Protocol == ProtocolGRPC {
		built.Mark(built.GRPC)
		return otlpmetricgrpc.New(ctx, otlpOptions(o, otlpmetricgrpc.WithTimeout, otlpmetricgrpc.WithRetry(otlpmetricgrpc.RetryConfig{Enabled: false}), otlpmetricgrpc.WithEndpointURL, otlpmetricgrpc.WithHeaders)...)
	}
	return otlpmetrichttp.New(ctx, otlpOptions(o, otlpmetrichttp.WithTimeout, otlpmetrichttp.WithRetry(otlpmetrichttp.RetryConfig{Enabled: false}), otlpmetrichttp.WithEndpointURL, otlpmetrichttp.WithHeaders)...)
}

// counts is what one signal's exports did.
type counts struct {
	sent, failed atomic.Int64
	lastErr      atomic.Pointer[string]
}

func (c *counts) record(n int, err error) {
	if err == nil {
		c.sent.Add(int64(n))
		return
	}
	c.failed.Add(int64(n))
	msg := err.Error()
	c.lastErr.Store(&msg)
}

// countingLogs, countingSpans and countingMetrics count what their exporter sent and failed to.
type countingLogs struct {
	sdklog.Exporter
	c *counts
}

func (x countingLogs) Export(ctx context.Context, recs []sdklog.Record) error {
	err := x.Exporter.Export(ctx, recs)
	x.c.record(len(recs), err)
	return err
}

type countingSpans struct {
	sdktrace.SpanExporter
	c *counts
}

func (x countingSpans) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	err := x.SpanExporter.ExportSpans(ctx, spans)
	x.c.record(len(spans), err)
	return err
}

type countingMetrics struct {
	sdkmetric.Exporter
	c *counts
}

func (x countingMetrics) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	err := x.Exporter.Export(ctx, rm)
	n := 0
	for _, sm := range rm.ScopeMetrics {
		n += len(sm.Metrics)
	}
	x.c.record(n, err)
	return err
}

// exporterError names the signal and exporter that could not be made.
func exporterError(s Signal, e Exporter, err error) error {
	return fmt.Errorf("telemetry: the %s %s exporter: %w", s, e, err)
}
