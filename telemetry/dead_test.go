package telemetry

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/permission"
)

// blackhole accepts connections and never answers: a collector that hangs.
func blackhole(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	return l.Addr().String()
}

// TestHungCollectorNeverHoldsTheSession: with a collector that accepts and never answers, and an
// export timeout of a minute, a session's events never wait for it (far more events than the
// queue holds are emitted while an export hangs), and Shutdown gives up at its bound, reporting
// what was not sent, instead of waiting out the export's minute.
func TestHungCollectorNeverHoldsTheSession(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out a hung collector: -short leaves it out; the whole suite runs it")
	}
	for _, proto := range []string{ProtocolHTTPProtobuf, ProtocolGRPC} {
		t.Run(proto, func(t *testing.T) {
			addr := blackhole(t)
			env := map[string]string{"CLAUDE_CODE_ENABLE_TELEMETRY": "1", "OTEL_LOGS_EXPORTER": "otlp", "OTEL_TRACES_EXPORTER": "otlp",
				"OTEL_METRICS_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": proto, "OTEL_EXPORTER_OTLP_ENDPOINT": "http://" + addr,
				"OTEL_EXPORTER_OTLP_TIMEOUT": "60000", "OTEL_LOGS_EXPORT_INTERVAL": "1", "OTEL_METRIC_EXPORT_INTERVAL": "1"}
			cfg, err := FromEnv(envOf(env))
			if err != nil {
				t.Fatal(err)
			}
			tel, err := Start(context.Background(), cfg, Options{ShutdownTimeout: 300 * time.Millisecond, Getenv: envOf(nil)})
			if err != nil {
				t.Fatal(err)
			}
			obs := tel.Observer()
			var seen string
			echo, pc := echoTool(&seen), newContext(t, []permission.Rule{allowEcho})
			// Three queues' worth of calls, each with a decision, a result and a span.
			for range 3 * maxQueue {
				ctx, end := obs.Run(context.Background(), llm.UserText("hi"))
				runCallIn(t, obs, ctx, echo, `{"cmd":"ls"}`, pc)
				end(&agent.Result{})
			}
			r := tel.Shutdown(context.Background())
			if r.ShutdownErr == nil || !r.Lost() {
				t.Fatalf("shutdown reported nothing lost: %s", r)
			}
			for _, s := range []Signal{Logs, Traces} {
				if r.Sent[s] != 0 {
					t.Errorf("%s: %d sent to a collector that never answers", s, r.Sent[s])
				}
				if r.Dropped[s] == 0 {
					t.Errorf("%s: nothing dropped, though three queues' worth waited on a hung export: %s", s, r)
				}
			}
		})
	}
}
