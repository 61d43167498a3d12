package telemetry

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func envOf(kv map[string]string) func(string) string {
	return func(k string) string { return kv[k] }
}

func TestFromEnv(t *testing.T) {
	on := map[string]string{"CLAUDE_CODE_ENABLE_TELEMETRY": "1"}
	with := func(extra map[string]string) map[string]string {
		m := map[string]string{}
		for k, v := range on {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	tests := []struct {
		name    string
		env     map[string]string
		check   func(t *testing.T, c Config)
		wantErr []string // every variable the error must name
	}{
		{name: "off by default", env: map[string]string{"OTEL_LOGS_EXPORTER": "bogus"}, check: func(t *testing.T, c Config) {
			if c.Enabled {
				t.Error("enabled without the switch")
			}
		}},
		{name: "reins' own switch", env: map[string]string{"REINS_ENABLE_TELEMETRY": "true"}, check: func(t *testing.T, c Config) {
			if !c.Enabled || len(c.Exporters[Logs]) != 0 {
				t.Errorf("got %+v", c)
			}
		}},
		{name: "defaults", env: with(map[string]string{"OTEL_LOGS_EXPORTER": "otlp"}), check: func(t *testing.T, c Config) {
			want := OTLP{Protocol: ProtocolHTTPProtobuf, Timeout: DefaultExportTimeout}
			if d := cmp.Diff(want, c.OTLP[Logs]); d != "" {
				t.Error(d)
			}
			if c.MetricInterval != DefaultMetricInterval || c.LogsInterval != DefaultLogsInterval {
				t.Errorf("intervals %v %v", c.MetricInterval, c.LogsInterval)
			}
		}},
		{name: "general endpoint gets the signal's path, a per-signal one is kept", env: with(map[string]string{
			"OTEL_LOGS_EXPORTER": "otlp", "OTEL_TRACES_EXPORTER": "otlp,console", "OTEL_METRICS_EXPORTER": "otlp",
			"OTEL_EXPORTER_OTLP_ENDPOINT":         "http://collector:4318/",
			"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT":  "https://traces.example/custom",
			"OTEL_EXPORTER_OTLP_METRICS_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_HEADERS": "Authorization=Bearer%20x, team=a",
			"OTEL_METRIC_EXPORT_INTERVAL": "1000", "OTEL_LOGS_EXPORT_INTERVAL": "250",
		}), check: func(t *testing.T, c Config) {
			if got := c.OTLP[Logs].Endpoint; got != "http://collector:4318/v1/logs" {
				t.Errorf("logs endpoint %q", got)
			}
			if got := c.OTLP[Traces].Endpoint; got != "https://traces.example/custom" {
				t.Errorf("traces endpoint %q", got)
			}
			if got := c.OTLP[Metrics]; got.Protocol != ProtocolGRPC || got.Endpoint != "http://collector:4318/" {
				t.Errorf("metrics %+v", got)
			}
			if d := cmp.Diff(map[string]string{"Authorization": "Bearer x", "team": "a"}, c.OTLP[Logs].Headers); d != "" {
				t.Error(d)
			}
			if d := cmp.Diff([]Exporter{ExporterOTLP, ExporterConsole}, c.Exporters[Traces]); d != "" {
				t.Error(d)
			}
			if c.MetricInterval != time.Second || c.LogsInterval != 250*time.Millisecond {
				t.Errorf("intervals %v %v", c.MetricInterval, c.LogsInterval)
			}
		}},
		{name: "none", env: with(map[string]string{"OTEL_LOGS_EXPORTER": "none"}), check: func(t *testing.T, c Config) {
			if len(c.Exporters[Logs]) != 0 {
				t.Errorf("exporters %v", c.Exporters[Logs])
			}
		}},
		{name: "bad switch", env: map[string]string{"CLAUDE_CODE_ENABLE_TELEMETRY": "maybe"}, wantErr: []string{"CLAUDE_CODE_ENABLE_TELEMETRY"}},
		{name: "every bad variable is named", env: with(map[string]string{
			"OTEL_LOGS_EXPORTER": "otlp", "OTEL_METRICS_EXPORTER": "prometheus", "OTEL_TRACES_EXPORTER": "zipkin",
			"OTEL_EXPORTER_OTLP_LOGS_PROTOCOL": "http/json", "OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4317",
			"OTEL_EXPORTER_OTLP_HEADERS": "novalue", "OTEL_METRIC_EXPORT_INTERVAL": "-5", "OTEL_LOGS_EXPORT_INTERVAL": "5s",
			"OTEL_LOG_USER_PROMPTS": "2", "OTEL_EXPORTER_OTLP_TIMEOUT": "0",
		}), wantErr: []string{"OTEL_METRICS_EXPORTER", "OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_LOGS_PROTOCOL",
			"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_HEADERS", "OTEL_METRIC_EXPORT_INTERVAL", "OTEL_LOGS_EXPORT_INTERVAL",
			"OTEL_LOG_USER_PROMPTS", "OTEL_EXPORTER_OTLP_TIMEOUT"}},
		{name: "a header with a line break", env: with(map[string]string{"OTEL_LOGS_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_LOGS_HEADERS": "a=b%0D%0AX-Evil: 1"}),
			wantErr: []string{"OTEL_EXPORTER_OTLP_LOGS_HEADERS"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := FromEnv(envOf(tt.env))
			if len(tt.wantErr) > 0 {
				if err == nil {
					t.Fatalf("no error; config %+v", c)
				}
				for _, name := range tt.wantErr {
					if !strings.Contains(err.Error(), name) {
						t.Errorf("error does not name %s: %v", name, err)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, c)
		})
	}
}

// FuzzFromEnv: whatever the variables hold, FromEnv returns a config or an error naming a
// variable, never panics, and never carries a header with a line break.
func FuzzFromEnv(f *testing.F) {
	f.Add("otlp", "grpc", "http://localhost:4317", "a=b,c=d", "5000")
	f.Add("console,otlp", "http/protobuf", "https://x/y/", "k=%zz", "0")
	f.Add("none", "http/json", "::", "=v", "abc")
	f.Fuzz(func(t *testing.T, exporter, proto, endpoint, headers, interval string) {
		env := map[string]string{"CLAUDE_CODE_ENABLE_TELEMETRY": "1", "OTEL_LOGS_EXPORTER": exporter, "OTEL_TRACES_EXPORTER": exporter,
			"OTEL_EXPORTER_OTLP_PROTOCOL": proto, "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_EXPORTER_OTLP_HEADERS": headers,
			"OTEL_LOGS_EXPORT_INTERVAL": interval}
		c, err := FromEnv(envOf(env))
		if err != nil {
			if !strings.Contains(err.Error(), "OTEL_") {
				t.Fatalf("error names no variable: %v", err)
			}
			return
		}
		for _, o := range c.OTLP {
			for k, v := range o.Headers {
				if strings.ContainsAny(k+v, "\r\n") {
					t.Fatalf("header %q: %q has a line break", k, v)
				}
			}
		}
		if c.LogsInterval <= 0 {
			t.Fatalf("interval %v", c.LogsInterval)
		}
	})
}
