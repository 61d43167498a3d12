package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/reinsdev/reins/built"
	"github.com/reinsdev/reins/llm/bedrock/bedrocktest"
	"github.com/reinsdev/reins/llm/llmtest"
	"github.com/reinsdev/reins/llm/vertex/vertextest"
)

// runBuilt runs reins with args and returns the parts built on first use that the process
// built (REINS_DEBUG_BUILT).
func (e *e2e) runBuilt(args ...string) []built.Part {
	e.t.Helper()
	out := filepath.Join(e.t.TempDir(), "built")
	e.env = append(e.env, "REINS_DEBUG_BUILT="+out)
	e.run(args...)
	data, err := os.ReadFile(out)
	if err != nil {
		e.t.Fatalf("reins wrote no record of what it built: %v\nstderr: %s", err, e.stderr)
	}
	var parts []built.Part
	for _, l := range strings.Fields(string(data)) {
		parts = append(parts, built.Part(l))
	}
	return parts
}

// warmProbe runs `reins sandbox status` in e's home, which records in the probe cache the
// backend that works here: the first session on a machine tries the backends and so makes its
// sandbox at start; later ones make it at their first Bash command.
func (e *e2e) warmProbe() {
	e.t.Helper()
	e.run("sandbox", "status")
	e.code = 0 // a machine with no backend has nothing to warm, and nothing to build
}

// sandboxRun is what a run whose settings enable the sandbox and that runs one command builds:
// the sandbox and the knowledge base, or, with no backend here, the sandbox alone (made and
// refused at start, before any call).
func sandboxRun() []built.Part {
	if backendWorks() {
		return []built.Part{built.Sandbox, built.Knowledge}
	}
	return []built.Part{built.Sandbox}
}

// TestNothingBuiltThatTheRunDoesNotUse: `reins --version` and a plain headless turn (one Read
// call against the fake API) build none of the parts built on first use — no exporter, gRPC
// connection, credential chain, classifier, knowledge base or sandbox (on a machine whose
// sandbox probe has run once: see warmProbe).
// TestEveryPartIsRecordedWhenUsed shows that the record sees each of them.
func TestNothingBuiltThatTheRunDoesNotUse(t *testing.T) {
	bin := reinsBinary(t)
	e := newE2E(t, bin)
	if got := e.runBuilt("--version"); len(got) > 0 || e.code != 0 {
		t.Errorf("reins --version (exit %d) built %v", e.code, got)
	}
	e = newE2E(t, bin)
	e.warmProbe()
	p := e.write("notes.txt", "hello\n")
	srv := llmtest.NewAnthropicServer(t, llmtest.UseTools(llmtest.Call("Read", `{"file_path":"`+p+`"}`)), llmtest.Say("read"))
	got := e.anthropic(srv).runBuilt("-p", "read the notes")
	e.wantCode(0)
	if len(got) > 0 {
		t.Errorf("a plain headless turn built %v", got)
	}
	if rs := toolResults(t, srv.Requests()[1]); len(rs) != 1 || rs[0].IsError {
		t.Fatalf("the turn did not read: %+v", rs)
	}
}

// TestEveryPartIsRecordedWhenUsed: each part built on first use is recorded when a run uses
// it, so the test above cannot pass for want of a record; every part of built.All has a run
// here.
func TestEveryPartIsRecordedWhenUsed(t *testing.T) {
	bin := reinsBinary(t)
	seen := map[built.Part]bool{}
	// A Bash command that runs builds the sandbox too, where a backend works.
	ran := func(parts ...built.Part) []built.Part {
		if backendWorks() {
			parts = append(parts, built.Sandbox)
		}
		return parts
	}
	for _, tc := range []struct {
		name string
		want []built.Part
		run  func(t *testing.T, e *e2e) []built.Part
	}{
		{"a Bash call: the knowledge base", ran(built.Knowledge), func(t *testing.T, e *e2e) []built.Part {
			srv := llmtest.NewAnthropicServer(t, llmtest.UseTools(llmtest.Call("Bash", `{"command":"ls"}`)), llmtest.Say("listed"))
			return e.anthropic(srv).runBuilt("-p", "list")
		}},
		{"telemetry over gRPC", []built.Part{built.Telemetry, built.GRPC}, func(t *testing.T, e *e2e) []built.Part {
			srv := llmtest.NewAnthropicServer(t, llmtest.Say("hi"))
			e.env = append(e.env, "CLAUDE_CODE_ENABLE_TELEMETRY=1", "OTEL_METRICS_EXPORTER=otlp",
				"OTEL_EXPORTER_OTLP_PROTOCOL=grpc", "OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:1")
			return e.anthropic(srv).runBuilt("-p", "hi")
		}},
		{"auto mode's classifier", ran(built.Classifier, built.Knowledge), func(t *testing.T, e *e2e) []built.Part {
			srv := llmtest.NewAnthropicServer(t, llmtest.UseTools(llmtest.Call("Bash", `{"command":"ln -s x built.txt"}`)), llmtest.Say("done")).
				Side(classifierMatch, verdictTurn("allow", "creates a file in the project"))
			return e.anthropic(srv).runBuilt("-p", "--permission-mode", "auto", "--", "build")
		}},
		{"the sandbox, at the first command", sandboxRun(), func(t *testing.T, e *e2e) []built.Part {
			e.userSettings(`{"sandbox": {"enabled": true}}`)
			srv := llmtest.NewAnthropicServer(t, llmtest.UseTools(llmtest.Call("Bash", `{"command":"true"}`)), llmtest.Say("ran"))
			got := e.anthropic(srv).runBuilt("-p", "run")
			if e.code != 0 && strings.Contains(e.stderr, "no sandbox backend works") {
				e.code = 0 // built and refused: this machine has no backend, the record still shows it
			}
			return got
		}},
		{"Bedrock's credential chain", []built.Part{built.AWSCredentials}, func(t *testing.T, e *e2e) []built.Part {
			api := llmtest.NewAnthropicServer(t, llmtest.Say("hi"))
			keys := bedrocktest.Credentials{AccessKeyID: "AKIDE2E", SecretAccessKey: "e2e-secret", Region: "eu-west-3"}
			srv := bedrocktest.NewServer(t, api, keys)
			e.env = append(e.env, "CLAUDE_CODE_USE_BEDROCK=1", "AWS_REGION=eu-west-3", "AWS_ACCESS_KEY_ID=AKIDE2E",
				"AWS_SECRET_ACCESS_KEY=e2e-secret", "AWS_EC2_METADATA_DISABLED=true", "ANTHROPIC_BEDROCK_BASE_URL="+srv.URL)
			return e.runBuilt("-p", "hi")
		}},
		{"Vertex AI's credentials", []built.Part{built.GoogleCredentials}, func(t *testing.T, e *e2e) []built.Part {
			api := llmtest.NewAnthropicServer(t, llmtest.Say("hi"))
			srv := vertextest.NewServer(t, api, "acme-ai", "global")
			e.env = append(e.env, "CLAUDE_CODE_USE_VERTEX=1", "CLOUD_ML_REGION=global", "ANTHROPIC_VERTEX_PROJECT_ID=acme-ai",
				"GOOGLE_APPLICATION_CREDENTIALS="+srv.CredentialsFile, "ANTHROPIC_VERTEX_BASE_URL="+srv.URL)
			return e.runBuilt("-p", "hi")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newE2E(t, bin)
			e.warmProbe()
			got := tc.run(t, e)
			if e.code != 0 {
				t.Fatalf("exit %d\nstderr: %s", e.code, e.stderr)
			}
			for _, p := range got {
				seen[p] = true
			}
			slices.Sort(tc.want)
			if !slices.Equal(got, tc.want) {
				t.Errorf("built %v, want %v\nstderr: %s", got, tc.want, e.stderr)
			}
		})
	}
	for _, p := range built.All {
		if !seen[p] {
			t.Errorf("no run here builds %s: the record of it is not shown to work", p)
		}
	}
}

// TestOwnPackageInitsStaySmall: Go runs the init of every linked package in every run, so the
// package initialisers of our own build no tables or regexps that a run may not use (they are
// built on first use): by GODEBUG=inittrace=1, `reins --version` spends at most 32 KiB on any
// one package of ours and 96 KiB on all of them (the Bash knowledge base built at init would
// be several hundred). Bytes allocated are counted, not time.
func TestOwnPackageInitsStaySmall(t *testing.T) {
	bin := reinsBinary(t)
	e := newE2E(t, bin)
	e.env = append(e.env, "GODEBUG=inittrace=1")
	e.run("--version").wantCode(0)
	const perPackage, total = 32 << 10, 96 << 10
	sum, ours, all := 0, 0, 0
	for _, line := range strings.Split(e.stderr, "\n") {
		// init PKG @T ms, C ms clock, B bytes, A allocs
		f := strings.Fields(line)
		if len(f) < 11 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		all++
		pkg, ok := strings.CutPrefix(f[1], "github.com/reinsdev/reins/")
		if !ok {
			continue
		}
		n, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		ours++
		sum += n
		if n > perPackage {
			t.Errorf("package %s allocates %d bytes at init, more than %d: build it on first use", pkg, n, perPackage)
		}
	}
	if all < 100 || ours < 10 {
		t.Fatalf("the trace has %d inits, %d of ours: not read right\n%s", all, ours, e.stderr)
	}
	if sum > total {
		t.Errorf("our packages allocate %d bytes at init, more than %d", sum, total)
	}
}
