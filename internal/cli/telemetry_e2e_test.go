package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/reinsdev/reins/llm/llmtest"
)

// The telemetry end-to-end test sends to a real OpenTelemetry pipeline: test/otelcol, a small
// collector made of the collector's own OTLP receiver and a file exporter, built from its own
// module (pinned in test/otelcol/go.mod) on first use.
var (
	colOnce sync.Once
	colPath string
	colErr  error
)

func otelcolBinary(t *testing.T) string {
	t.Helper()
	colOnce.Do(func() {
		dir, err := os.MkdirTemp("", "reins-otelcol-")
		if err != nil {
			colErr = err
			return
		}
		keepTempDir(dir)
		colPath = filepath.Join(dir, "otelcol")
		cmd := exec.Command("go", "build", "-o", colPath, ".")
		cmd.Dir = filepath.Join("..", "..", "test", "otelcol")
		if out, err := cmd.CombinedOutput(); err != nil {
			colErr = fmt.Errorf("building test/otelcol: %v\n%s", err, out)
		}
	})
	if colErr != nil {
		t.Fatal(colErr)
	}
	return colPath
}

// collector is a running test/otelcol.
type collector struct {
	dir        string
	grpc, http string
}

func startCollector(t *testing.T) *collector {
	t.Helper()
	c := &collector{dir: t.TempDir()}
	cmd := exec.Command(otelcolBinary(t), "-dir", c.dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
	sc := bufio.NewScanner(out)
	for (c.grpc == "" || c.http == "") && sc.Scan() {
		if a, ok := strings.CutPrefix(sc.Text(), "grpc "); ok {
			c.grpc = a
		}
		if a, ok := strings.CutPrefix(sc.Text(), "http "); ok {
			c.http = a
		}
	}
	if c.grpc == "" || c.http == "" {
		t.Fatalf("the collector did not say where it listens: %v", sc.Err())
	}
	return c
}

// otlpValue is an OTLP JSON AnyValue, read as text.
type otlpValue struct {
	String *string `json:"stringValue"`
	Int    *string `json:"intValue"`
	Bool   *bool   `json:"boolValue"`
}

func (v otlpValue) text() string {
	switch {
	case v.String != nil:
		return *v.String
	case v.Int != nil:
		return *v.Int
	case v.Bool != nil:
		return fmt.Sprint(*v.Bool)
	}
	return ""
}

type otlpAttrs []struct {
	Key   string    `json:"key"`
	Value otlpValue `json:"value"`
}

func (a otlpAttrs) get(k string) string {
	for _, kv := range a {
		if kv.Key == k {
			return kv.Value.text()
		}
	}
	return ""
}

type otlpRecord struct {
	EventName  string    `json:"eventName"`
	Attributes otlpAttrs `json:"attributes"`
}

type otlpSpan struct {
	TraceID, SpanID, ParentSpanID, Name string
	Attributes                          otlpAttrs `json:"attributes"`
}

// lines reads the collector's file of one signal, one OTLP JSON batch a line.
func (c *collector) lines(t *testing.T, name string, each func(line []byte)) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(c.dir, name))
	if err != nil {
		t.Fatalf("the collector received no %s: %v", name, err)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		each([]byte(l))
	}
}

func (c *collector) events(t *testing.T) []otlpRecord {
	var out []otlpRecord
	c.lines(t, "logs.jsonl", func(l []byte) {
		var b struct {
			ResourceLogs []struct {
				ScopeLogs []struct {
					LogRecords []otlpRecord `json:"logRecords"`
				} `json:"scopeLogs"`
			} `json:"resourceLogs"`
		}
		if err := json.Unmarshal(l, &b); err != nil {
			t.Fatal(err)
		}
		for _, rl := range b.ResourceLogs {
			for _, sl := range rl.ScopeLogs {
				out = append(out, sl.LogRecords...)
			}
		}
	})
	return out
}

func (c *collector) spans(t *testing.T) []otlpSpan {
	var out []otlpSpan
	c.lines(t, "traces.jsonl", func(l []byte) {
		var b struct {
			ResourceSpans []struct {
				ScopeSpans []struct {
					Spans []otlpSpan `json:"spans"`
				} `json:"scopeSpans"`
			} `json:"resourceSpans"`
		}
		if err := json.Unmarshal(l, &b); err != nil {
			t.Fatal(err)
		}
		for _, rs := range b.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				out = append(out, ss.Spans...)
			}
		}
	})
	return out
}

// TestTelemetryE2E runs the real reins with telemetry on against the collector: logs and
// metrics over gRPC, traces over HTTP. A denied rm sends a tool_decision naming the rule, its
// file and line; the turn's, the requests' and the calls' spans arrive linked; the Bash command
// that ran saw its span as TRACEPARENT.
func TestTelemetryE2E(t *testing.T) {
	col := startCollector(t)
	e := newE2E(t, reinsBinary(t))
	settings := `{
  "permissions": {
    "deny": ["Bash(rm:*)"]
  }
}
`
	if err := os.MkdirAll(filepath.Join(e.dir, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	settingsPath := e.write(filepath.Join(".claude", "settings.json"), settings)
	srv := llmtest.NewAnthropicServer(t,
		llmtest.UseTools(llmtest.Call("Bash", `{"command":"rm -rf build","description":"Clean"}`),
			llmtest.Call("Bash", `{"command":"printenv TRACEPARENT","description":"Show the trace"}`)),
		llmtest.Say("Done."))
	e.anthropic(srv)
	e.env = append(e.env, "CLAUDE_CODE_ENABLE_TELEMETRY=1",
		"OTEL_LOGS_EXPORTER=otlp", "OTEL_METRICS_EXPORTER=otlp", "OTEL_TRACES_EXPORTER=otlp",
		"OTEL_EXPORTER_OTLP_PROTOCOL=grpc", "OTEL_EXPORTER_OTLP_ENDPOINT=http://"+col.grpc,
		"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://"+col.http+"/v1/traces")
	// A shared project file's allow list waits for trust; the flag's does not.
	e.run("-p", "clean up", "--allowedTools", "Bash(printenv:*)").wantCode(0)
	if strings.Contains(e.stderr, "telemetry:") {
		t.Errorf("telemetry lost something:\n%s", e.stderr)
	}

	// The denied rm names its rule, where the rule is, the step and the mode.
	var decision *otlpRecord
	events := col.events(t)
	for i, r := range events {
		if r.EventName == "claude_code.tool_decision" && r.Attributes.get("decision") == "reject" {
			decision = &events[i]
		}
	}
	if decision == nil {
		t.Fatalf("no rejecting tool_decision among %d events", len(events))
	}
	want := map[string]string{"tool_name": "Bash", "source": "config", "reins.decision": "deny", "reins.rule": "Bash(rm:*)",
		"reins.rule.source": "projectSettings", "reins.rule.origin": settingsPath + ":3:14", "reins.mode": "default", "event.name": "tool_decision"}
	for k, v := range want {
		if got := decision.Attributes.get(k); got != v {
			t.Errorf("tool_decision %s = %q, want %q (all: %+v)", k, got, v, decision.Attributes)
		}
	}
	if decision.Attributes.get("reins.step") == "" || decision.Attributes.get("session.id") == "" {
		t.Errorf("tool_decision without step or session: %+v", decision.Attributes)
	}

	// One trace: the run's span, two model requests and two calls under it.
	spans := col.spans(t)
	var run otlpSpan
	for _, s := range spans {
		if s.Name == "invoke_agent reins" {
			run = s
		}
	}
	if run.SpanID == "" {
		t.Fatalf("no invoke_agent span among %d", len(spans))
	}
	children := map[string][]otlpSpan{}
	for _, s := range spans {
		if s.ParentSpanID == run.SpanID && s.TraceID == run.TraceID {
			children[strings.Fields(s.Name)[0]] = append(children[strings.Fields(s.Name)[0]], s)
		}
	}
	if len(children["chat"]) != 2 || len(children["execute_tool"]) != 2 {
		t.Fatalf("under the run: %d chat and %d execute_tool spans, want 2 and 2 (all spans: %+v)", len(children["chat"]), len(children["execute_tool"]), spans)
	}

	// The command ran with its own call's span as TRACEPARENT.
	reqs := srv.Requests()
	tp := regexp.MustCompile(`00-([0-9a-f]{32})-([0-9a-f]{16})-01`).FindStringSubmatch(resultTextOf(t, reqs[len(reqs)-1], "anthropic"))
	if tp == nil {
		t.Fatalf("printenv TRACEPARENT printed no traceparent: %q", resultTextOf(t, reqs[len(reqs)-1], "anthropic"))
	}
	var printenv otlpSpan
	for _, s := range children["execute_tool"] {
		if s.Attributes.get("reins.decision") == "allow" {
			printenv = s
		}
	}
	if tp[1] != run.TraceID || tp[2] != printenv.SpanID {
		t.Errorf("the command saw trace %s span %s; want the allowed call's span %s of trace %s", tp[1], tp[2], printenv.SpanID, run.TraceID)
	}

	// Metrics arrived at exit, with Claude Code's session counter and Reins' decisions.
	var metrics strings.Builder
	col.lines(t, "metrics.jsonl", func(l []byte) { metrics.Write(l) })
	for _, name := range []string{`"claude_code.session.count"`, `"reins.permission.decision.count"`, `"claude_code.token.usage"`} {
		if !strings.Contains(metrics.String(), name) {
			t.Errorf("metric %s not received", name)
		}
	}
}
