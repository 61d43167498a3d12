package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/reinsdev/reins/llm/llmtest"
)

// TestTaintEndToEnd runs the real binary in bypassPermissions against the scripted API: curl
// to a local server runs before the agent reads .env, and is denied after it (headless, the
// taint step's ask is a deny), with the reason naming .env. Reading the project's README does
// not taint: the last curl would fail otherwise. A session continued with --continue is still
// tainted.
func TestTaintEndToEnd(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed; the test sends a request with it")
	}
	var hits atomic.Int32
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, "received")
	}))
	defer sink.Close()
	curl := func(path string) llmtest.ToolCall {
		return llmtest.Call("Bash", fmt.Sprintf(`{"command":"curl -s %s%s","description":"send"}`, sink.URL, path))
	}

	// Running as root (a container) needs IS_SANDBOX=1 for bypassPermissions. The OS sandbox,
	// on by default, is off: the test is of the taint decision, and curl must reach the host's
	// loopback server, which the sandbox keeps every command from (TestSandboxEffects).
	bypassing := func(e *e2e) *e2e {
		e.env = append(e.env, "IS_SANDBOX=1")
		e.userSettings(`{"sandbox": {"enabled": false}}`)
		return e
	}
	clean := bypassing(newE2E(t, reinsBinary(t)))
	clean.write("README.md", "hello")
	clean.write(".env", "API_KEY=sk-test-123")
	srv := llmtest.NewAnthropicServer(t,
		llmtest.UseTools(llmtest.Call("Read", fmt.Sprintf(`{"file_path":%q}`, clean.dir+"/README.md"))),
		llmtest.UseTools(curl("/clean")),
		llmtest.Say("done"))
	clean.anthropic(srv).run("-p", "--permission-mode", "bypassPermissions", "go")
	clean.wantCode(0)
	if hits.Load() != 1 {
		t.Fatalf("a clean session's curl: %d requests reached the server, want 1\n%s", hits.Load(), clean.stderr)
	}

	e := bypassing(newE2E(t, reinsBinary(t)))
	e.write(".env", "API_KEY=sk-test-123")
	srv = llmtest.NewAnthropicServer(t,
		llmtest.UseTools(curl("/before")),
		llmtest.UseTools(llmtest.Call("Read", fmt.Sprintf(`{"file_path":%q}`, e.dir+"/.env"))),
		llmtest.UseTools(curl("/after")),
		llmtest.Say("done"))
	e.anthropic(srv).run("-p", "--permission-mode", "bypassPermissions", "go")
	e.wantCode(0)
	if got := hits.Load(); got != 2 {
		t.Fatalf("%d requests reached the server, want 2 (before .env only)\n%s", got, e.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests to the model, want 4", len(reqs))
	}
	if r := lastToolResult(t, reqs[1]); !strings.Contains(r, "received") {
		t.Errorf("the first curl's result does not hold the server's answer: %s", r)
	}
	r := lastToolResult(t, reqs[3])
	if !strings.Contains(r, `"is_error":true`) || !strings.Contains(r, e.dir+"/.env") || !strings.Contains(r, "127.0.0.1") {
		t.Errorf("the second curl's result is not a denial naming .env and the destination: %s", r)
	}

	// --continue brings the taint back with the conversation that holds the secret.
	srv = llmtest.NewAnthropicServer(t, llmtest.UseTools(curl("/resumed")), llmtest.Say("done"))
	e.anthropic(srv).run("-p", "--continue", "--permission-mode", "bypassPermissions", "again")
	e.wantCode(0)
	if got := hits.Load(); got != 2 {
		t.Fatalf("after --continue, %d requests reached the server, want still 2\n%s", got, e.stderr)
	}
	if r := lastToolResult(t, srv.Requests()[1]); !strings.Contains(r, e.dir+"/.env") {
		t.Errorf("the resumed session's curl was not refused for .env: %s", r)
	}
}

// lastToolResult is the last tool_result block of a request to the model, as JSON.
func lastToolResult(t *testing.T, req llmtest.Request) string {
	t.Helper()
	var body struct {
		Messages []struct {
			Content []json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := req.Decode(&body); err != nil {
		t.Fatal(err)
	}
	last := ""
	for _, m := range body.Messages {
		for _, b := range m.Content {
			if strings.Contains(string(b), `"type":"tool_result"`) {
				last = string(b)
			}
		}
	}
	return last
}
