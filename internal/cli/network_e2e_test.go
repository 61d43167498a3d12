//go:build linux

package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/reinsdev/reins/llm/llmtest"
)

// hostServer is an HTTP server on the host's loopback that counts the requests it got.
func hostServer(t *testing.T) (port string, hits *atomic.Int32) {
	t.Helper()
	hits = &atomic.Int32{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, "reached "+r.URL.Path)
	}))
	t.Cleanup(srv.Close)
	return srv.URL[strings.LastIndexByte(srv.URL, ':')+1:], hits
}

// curlViaProxy is a Bash call that fetches path from the host's loopback through the
// sandbox's proxy (an empty --noproxy list keeps it on the proxy whatever NO_PROXY says).
func curlViaProxy(port, path string) llmtest.ToolCall {
	return llmtest.Call("Bash", fmt.Sprintf(`{"command":"curl --noproxy '' -s -m 20 http://127.0.0.1:%s%s","description":"fetch"}`, port, path))
}

// TestNetworkAskHeadless: in plain -p no one can answer the proxy's ask about a host, so the
// connection is refused as before, the model is told, and the session's violations list it.
func TestNetworkAskHeadless(t *testing.T) {
	skipUnlessBackend(t, "bubblewrap")
	port, hits := hostServer(t)
	e := newE2E(t, reinsBinary(t))
	srv := llmtest.NewAnthropicServer(t, llmtest.UseTools(curlViaProxy(port, "/p")), llmtest.Say("done"))
	e.userSettings(`{"permissions": {"allow": ["Bash(curl:*)"]}}`)
	e.env = append(e.env, "REINS_SANDBOX_BACKEND=bubblewrap")
	e.anthropic(srv).run("-p", "fetch")
	e.wantCode(0)
	if hits.Load() != 0 {
		t.Errorf("the host's server was reached %d times with no one to ask", hits.Load())
	}
	if !strings.Contains(e.stderr, "network: connection to 127.0.0.1:"+port+" refused") {
		t.Errorf("the violation is not listed:\n%s", e.stderr)
	}
	if got := lastToolResult(t, srv.Requests()[1]); !strings.Contains(got, "sandbox_violations") {
		t.Errorf("the model was not told: %s", got)
	}
}

// TestNetworkAskSDK: with the Agent SDK's canUseTool, the proxy's ask about a host reaches the
// caller as SandboxNetworkAccess; an allow lets the held connection through, and an allow that
// accepts the suggestion saves WebFetch(domain:host) in the local settings, after which the host
// is not asked about again.
func TestNetworkAskSDK(t *testing.T) {
	skipUnlessBackend(t, "bubblewrap")
	node := nodeSDK(t)
	port, hits := hostServer(t)
	e := newE2E(t, reinsBinary(t))
	srv := llmtest.NewAnthropicServer(t,
		llmtest.UseTools(curlViaProxy(port, "/one")),
		llmtest.UseTools(curlViaProxy(port, "/two")),
		llmtest.UseTools(curlViaProxy(port, "/three")),
		llmtest.Say("done"))
	e.env = append(e.env, "REINS_SANDBOX_BACKEND=bubblewrap")
	e.anthropic(srv).drive(node, "network")
	if !strings.Contains(e.stdout, `"asks":["Bash","SandboxNetworkAccess","Bash","SandboxNetworkAccess","Bash"]`) {
		t.Errorf("the asks, in order:\n%s", e.stdout)
	}
	if hits.Load() != 3 {
		t.Errorf("the host's server was reached %d times, want 3", hits.Load())
	}
	for i, want := range []string{"reached /one", "reached /two", "reached /three"} {
		if got := lastToolResult(t, srv.Requests()[i+1]); !strings.Contains(got, want) {
			t.Errorf("request %d: %s", i+1, got)
		}
	}
	local := filepath.Join(e.dir, ".reins", "settings.local.json")
	if b, err := os.ReadFile(local); err != nil || !strings.Contains(string(b), "WebFetch(domain:127.0.0.1)") {
		t.Errorf("the saved rule: %v\n%s", err, b)
	}
}
