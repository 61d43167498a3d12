// Command otelcol is the smallest OpenTelemetry Collector the telemetry tests need: the
// collector's own OTLP receiver (gRPC and HTTP) feeding a file exporter that appends every
// batch it receives, as OTLP JSON, one line each, to logs.jsonl, traces.jsonl and
// metrics.jsonl in -dir. It is a module of its own, so the main module does not carry the
// collector's dependencies.
//
//	otelcol -dir DIR -grpc 127.0.0.1:0 -http 127.0.0.1:0
//
// It prints "grpc ADDR" and "http ADDR" once it listens, and runs until SIGTERM or SIGINT.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/config/confignet"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/receiver/receivertest"
)

func main() {
	dir := flag.String("dir", ".", "folder of the .jsonl files")
	grpcAddr := flag.String("grpc", "127.0.0.1:0", "OTLP/gRPC listen address")
	httpAddr := flag.String("http", "127.0.0.1:0", "OTLP/HTTP listen address")
	flag.Parse()
	if err := run(*dir, *grpcAddr, *httpAddr); err != nil {
		fmt.Fprintln(os.Stderr, "otelcol:", err)
		os.Exit(1)
	}
}

func run(dir, grpcAddr, httpAddr string) error {
	// The receiver takes fixed addresses; free ports are found first.
	g, err := freeAddr(grpcAddr)
	if err != nil {
		return err
	}
	h, err := freeAddr(httpAddr)
	if err != nil {
		return err
	}
	f := otlpreceiver.NewFactory()
	cfg := f.CreateDefaultConfig().(*otlpreceiver.Config)
	cfg.Protocols.GRPC.GetOrInsertDefault().NetAddr = confignet.AddrConfig{Endpoint: g, Transport: confignet.TransportTypeTCP}
	cfg.Protocols.HTTP.GetOrInsertDefault().ServerConfig.NetAddr = confignet.AddrConfig{Endpoint: h, Transport: confignet.TransportTypeTCP}
	set := receivertest.NewNopSettings(f.Type())
	ctx := context.Background()
	w := &writer{dir: dir}
	lr, err := f.CreateLogs(ctx, set, cfg, consumerLogs(w))
	if err != nil {
		return err
	}
	tr, err := f.CreateTraces(ctx, set, cfg, consumerTraces(w))
	if err != nil {
		return err
	}
	mr, err := f.CreateMetrics(ctx, set, cfg, consumerMetrics(w))
	if err != nil {
		return err
	}
	host := componenttest.NewNopHost()
	for _, r := range []component.Component{lr, tr, mr} {
		if err := r.Start(ctx, host); err != nil {
			return err
		}
	}
	fmt.Printf("grpc %s\nhttp %s\n", g, h)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	<-sig
	for _, r := range []component.Component{lr, tr, mr} {
		_ = r.Shutdown(ctx)
	}
	return nil
}

func freeAddr(addr string) (string, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// writer appends one JSON line per batch to the signal's file.
type writer struct {
	dir string
	mu  sync.Mutex
}

func (w *writer) write(name string, b []byte, err error) error {
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	f, err := os.OpenFile(filepath.Join(w.dir, name), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func consumerLogs(w *writer) consumer.Logs {
	c, _ := consumer.NewLogs(func(_ context.Context, ld plog.Logs) error {
		b, err := (&plog.JSONMarshaler{}).MarshalLogs(ld)
		return w.write("logs.jsonl", b, err)
	})
	return c
}

func consumerTraces(w *writer) consumer.Traces {
	c, _ := consumer.NewTraces(func(_ context.Context, td ptrace.Traces) error {
		b, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
		return w.write("traces.jsonl", b, err)
	})
	return c
}

func consumerMetrics(w *writer) consumer.Metrics {
	c, _ := consumer.NewMetrics(func(_ context.Context, md pmetric.Metrics) error {
		b, err := (&pmetric.JSONMarshaler{}).MarshalMetrics(md)
		return w.write("metrics.jsonl", b, err)
	})
	return c
}
