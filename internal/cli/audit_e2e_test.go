package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/reinsdev/reins/llm/llmtest"
	"github.com/reinsdev/reins/settings/policy"
)

// auditScenario: an allowed ls, then an rm the settings deny.
func auditScenario() []llmtest.Turn {
	return []llmtest.Turn{
		llmtest.UseTools(llmtest.Call("Bash", `{"command":"ls","description":"List"}`)),
		llmtest.UseTools(llmtest.Call("Bash", `{"command":"rm -rf build","description":"Clean"}`)),
		llmtest.Say("Done."),
	}
}

func (e *e2e) managed(name, content string) {
	e.t.Helper()
	p := filepath.Join(filepath.Dir(e.dir), "managed", name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

func auditEntries(t *testing.T, e *e2e, args ...string) []map[string]any {
	t.Helper()
	e.run(append([]string{"audit", "show", "--json"}, args...)...)
	e.wantCode(0)
	var out []map[string]any
	for line := range strings.Lines(e.stdout) {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("audit show --json line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

func TestAuditE2E(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the end-to-end tests use a POSIX shell")
	}
	bin := reinsBinary(t)
	e := newE2E(t, bin)
	os.MkdirAll(filepath.Join(e.dir, ".reins"), 0o755)
	e.write(".reins/settings.local.json", `{"permissions": {"allow": ["Bash(ls)"], "deny": ["Bash(rm:*)"]}}`)
	e.anthropic(llmtest.NewAnthropicServer(t, auditScenario()...))
	e.run("-p", "clean up")
	e.wantCode(0)

	e.run("audit", "path")
	e.wantCode(0)
	path := strings.TrimSpace(e.stdout)
	if path != filepath.Join(e.home, ".reins", "audit", "audit.jsonl") {
		t.Fatalf("audit path = %q", path)
	}
	e.run("audit", "verify")
	e.wantCode(0)
	if !strings.HasPrefix(e.stdout, "ok: 5 entries") {
		t.Errorf("verify: %s", e.stdout)
	}

	denies := auditEntries(t, e, "--decision", "deny")
	if len(denies) != 1 || denies[0]["rule"] != "Bash(rm:*)" || denies[0]["ruleSource"] != "localSettings" ||
		!strings.HasSuffix(denies[0]["ruleOrigin"].(string), "settings.local.json:1:50") || denies[0]["input"] != nil || denies[0]["inputSha256"] == "" {
		t.Errorf("the deny entry: %v", denies)
	}
	if runs := auditEntries(t, e, "--kind", "run", "--tool", "Bash"); len(runs) != 2 || runs[0]["stage"] != "done" || runs[1]["stage"] != "denied" {
		t.Errorf("run entries: %v", runs)
	}

	// reins tool run's calls are in the same log.
	e.run("tool", "run", "Bash", "--input", `{"command":"rm -rf build"}`)
	e.wantCode(exitDenied)
	if d := auditEntries(t, e, "--session", "tool-run", "--decision", "deny"); len(d) != 1 || d[0]["rule"] != "Bash(rm:*)" {
		t.Errorf("tool run's deny: %v", d)
	}

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(data), `"decision":"allow"`) + len(`"decision":"a`)
	data[i] = 'A'
	os.WriteFile(path, data, 0o600)
	e.run("audit", "verify")
	e.wantCode(exitError)
	if !strings.Contains(e.stderr, "audit.jsonl:3: entry 3: the link to entry 2 does not match") {
		t.Errorf("verify after a changed byte: %s", e.stderr)
	}
}

func TestAuditRequiredE2E(t *testing.T) {
	bin := reinsBinary(t)
	e := newE2E(t, bin)
	blocked := filepath.Join(e.home, "file")
	os.WriteFile(blocked, nil, 0o644)
	e.managed("managed-settings.json", fmt.Sprintf(`{"audit": {"required": true, "path": %q}}`, filepath.Join(blocked, "audit.jsonl")))
	e.anthropic(llmtest.NewAnthropicServer(t, llmtest.Say("hi")))
	e.run("-p", "hello")
	e.wantCode(exitError)
	if !strings.Contains(e.stderr, "the audit log required by") || !strings.Contains(e.stderr, "managed-settings.json:1:") {
		t.Errorf("stderr: %s", e.stderr)
	}
	// Not required: a warning, and the run goes on.
	e.managed("managed-settings.json", fmt.Sprintf(`{"audit": {"path": %q}}`, filepath.Join(blocked, "audit.jsonl")))
	e.anthropic(llmtest.NewAnthropicServer(t, llmtest.Say("hi")))
	e.run("-p", "hello")
	e.wantCode(0)
	if !strings.Contains(e.stderr, "the audit log is off for this session") {
		t.Errorf("stderr: %s", e.stderr)
	}
}

// bundleServer serves a policy bundle and its signature.
type bundleServer struct {
	mu       sync.Mutex
	doc, sig []byte
}

func (b *bundleServer) set(doc, sig []byte) {
	b.mu.Lock()
	b.doc, b.sig = doc, sig
	b.mu.Unlock()
}

func (b *bundleServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch r.URL.Path {
	case "/policy.json":
		w.Write(b.doc)
	case "/policy.json.sig":
		w.Write(b.sig)
	default:
		http.NotFound(w, r)
	}
}

func TestPolicyBundleE2E(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the end-to-end tests use a POSIX shell")
	}
	bin := reinsBinary(t)
	e := newE2E(t, bin)
	keyFile := filepath.Join(e.home, "policy.key")
	e.run("policy", "keygen", "--out", keyFile)
	e.wantCode(0)
	pub := strings.TrimSpace(e.stdout)

	bundle := e.write("policy.json", `{"policyVersion": 7, "permissions": {"deny": ["Bash(rm:*)"]}}`)
	e.run("policy", "sign", "--key", keyFile, bundle)
	e.wantCode(0)
	doc, _ := os.ReadFile(bundle)
	sig, _ := os.ReadFile(bundle + ".sig")
	srv := &bundleServer{}
	srv.set(doc, sig)
	hs := httptest.NewServer(srv)
	defer hs.Close()
	e.managed("managed-settings.json", fmt.Sprintf(`{"policyBundle": {"url": %q, "publicKey": %q, "required": true}}`, hs.URL+"/policy.json", pub))
	os.MkdirAll(filepath.Join(e.dir, ".reins"), 0o755)
	e.write(".reins/settings.local.json", `{"permissions": {"allow": ["Bash"]}}`)

	// The signed bundle's deny rule applies, and its version is on the decision.
	llm := llmtest.NewAnthropicServer(t, auditScenario()...)
	e.anthropic(llm)
	e.run("-p", "clean up")
	e.wantCode(0)
	denies := auditEntries(t, e, "--decision", "deny")
	if len(denies) != 1 || denies[0]["rule"] != "Bash(rm:*)" || denies[0]["ruleSource"] != "policySettings" || denies[0]["policyVersion"] != "7" ||
		denies[0]["decidedBy"] != "rule" {
		t.Fatalf("the bundle's deny: %v", denies)
	}
	e.run("permissions", "check", "--tool", "Bash", "--input", `{"command":"rm -rf /tmp/x"}`)
	if e.code != exitDenied || !strings.Contains(e.stdout, hs.URL+"/policy.json") || !regexp.MustCompile(`policy bundle\s+version\s+7\n`).MatchString(e.stdout) {
		t.Errorf("permissions check: code %d\n%s%s", e.code, e.stdout, e.stderr)
	}

	// A tampered bundle stops reins.
	srv.set([]byte(strings.Replace(string(doc), "rm:*", "rx:*", 1)), sig)
	e.anthropic(llmtest.NewAnthropicServer(t, llmtest.Say("hi")))
	e.run("-p", "hello")
	e.wantCode(exitError)
	if !strings.Contains(e.stderr, "the signature does not verify") || !strings.Contains(e.stderr, "refusing to run without the organisation's policy") {
		t.Errorf("a tampered bundle: %s", e.stderr)
	}

	// An older signed bundle is a rollback.
	old := []byte(`{"policyVersion": 6, "permissions": {}}`)
	key, _ := os.ReadFile(keyFile)
	oldSig, err := policy.Sign(key, old)
	if err != nil {
		t.Fatal(err)
	}
	srv.set(old, oldSig)
	e.run("-p", "hello")
	e.wantCode(exitError)
	if !strings.Contains(e.stderr, "refusing to roll back") {
		t.Errorf("a rollback: %s", e.stderr)
	}

	// The server gone: the verified cache still applies, with a warning.
	hs.Close()
	e.anthropic(llmtest.NewAnthropicServer(t, llmtest.Say("hi")))
	e.run("-p", "hello")
	e.wantCode(0)
	if !strings.Contains(e.stderr, "using the cached copy, version 7") {
		t.Errorf("an unreachable server with a cache: %s", e.stderr)
	}
	// permissions check and permissions list decide with the same cached copy, and say so.
	e.run("permissions", "check", "--tool", "Bash", "--input", `{"command":"rm -rf /tmp/x"}`)
	if e.code != exitDenied || !strings.Contains(e.stdout, "warning: ") || !strings.Contains(e.stdout, "using the cached copy, version 7") {
		t.Errorf("permissions check with the cached bundle: code %d\n%s%s", e.code, e.stdout, e.stderr)
	}
	e.run("permissions", "check", "--json", "--tool", "Bash", "--input", `{"command":"rm -rf /tmp/x"}`)
	if !strings.Contains(e.stdout, "using the cached copy, version 7") {
		t.Errorf("permissions check --json with the cached bundle:\n%s", e.stdout)
	}
	e.run("permissions", "list")
	if e.code != 0 || !strings.Contains(e.stdout, "using the cached copy, version 7") {
		t.Errorf("permissions list with the cached bundle: code %d\n%s%s", e.code, e.stdout, e.stderr)
	}
	// And with no cache, a required bundle stops reins.
	os.RemoveAll(filepath.Join(e.home, ".reins", "policy"))
	e.run("-p", "hello")
	e.wantCode(exitError)
	if !strings.Contains(e.stderr, "no verified cached copy") {
		t.Errorf("an unreachable server without a cache: %s", e.stderr)
	}
}

func TestPolicyReplayE2E(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the end-to-end tests use a POSIX shell")
	}
	bin := reinsBinary(t)
	e := newE2E(t, bin)
	os.MkdirAll(filepath.Join(e.dir, ".reins"), 0o755)
	e.write(".reins/settings.local.json", `{"permissions": {"allow": ["Bash(ls)", "Bash(rm:*)"]}}`)
	e.trust()
	e.anthropic(llmtest.NewAnthropicServer(t, auditScenario()...))
	e.run("-p", "clean up")
	e.wantCode(0)

	same := e.write("same.json", `{"permissions": {"allow": ["Bash(ls)"]}}`)
	e.run("policy", "replay", "--settings", same)
	e.wantCode(0)
	if !strings.Contains(e.stdout, "2 calls replayed, 0 would change") {
		t.Errorf("replay of a policy that changes nothing: %s", e.stdout)
	}

	proposed := e.write("proposed.json", "{\n  \"permissions\": {\"deny\": [\"Bash(rm:*)\"]}\n}\n")
	e.run("policy", "replay", "--settings", proposed)
	e.wantCode(exitChanged)
	for _, want := range []string{"Bash: allow → deny", `rm -rf build`, `proposed: deny by deny "Bash(rm:*)" from policySettings (` + proposed + `:2:`, "2 calls replayed, 1 would change"} {
		if !strings.Contains(e.stdout, want) {
			t.Errorf("replay output lacks %q:\n%s", want, e.stdout)
		}
	}
	e.run("policy", "replay", "--settings", proposed, "--json", "--since", "1h")
	e.wantCode(exitChanged)
	var res struct {
		Calls   int
		Changes []struct {
			Before, After struct{ Decision, Rule string }
		}
	}
	if err := json.Unmarshal([]byte(e.stdout), &res); err != nil || res.Calls != 2 || len(res.Changes) != 1 || res.Changes[0].After.Rule != "Bash(rm:*)" || res.Changes[0].Before.Decision != "allow" {
		t.Errorf("replay --json: %v %s", err, e.stdout)
	}
	e.run("policy", "replay", "--settings", e.write("bad.json", `{"permissions": {"deny": 3}}`))
	e.wantCode(exitError)
	if !strings.Contains(e.stderr, "bad.json:1:") {
		t.Errorf("a bad proposed file: %s", e.stderr)
	}
}
