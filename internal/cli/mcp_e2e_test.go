package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm/llmtest"
)

// npmServer returns the path of an npm MCP server's entry point, installed by .ci/run
// (npm ci in test/mcp); the test skips when they are not installed.
func npmServer(t *testing.T, pkg string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "test", "mcp", "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Skipf("the npm MCP servers are not installed (run npm ci in test/mcp): %v", err)
	}
	return p
}

// requestTools are the tool names of a request to the fake Anthropic API.
func requestTools(t *testing.T, r llmtest.Request) []string {
	t.Helper()
	var body struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := r.Decode(&body); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, x := range body.Tools {
		out = append(out, x.Name)
	}
	return out
}

func TestMCPToolEndToEndUnderAllowRule(t *testing.T) {
	everything := npmServer(t, "server-everything")
	bin := reinsBinary(t)
	srv := llmtest.NewAnthropicServer(t,
		llmtest.UseTools(llmtest.Call("mcp__everything__echo", `{"message":"hello from the model"}`)),
		llmtest.Say("done"))
	e := newE2E(t, bin).anthropic(srv)
	e.env = append(e.env, "ENABLE_TOOL_SEARCH=false")
	config := fmt.Sprintf(`{"mcpServers": {"everything": {"command": "node", "args": [%q]}}}`, everything)
	e.run("-p", "--mcp-config", config, "--allowedTools", "mcp__everything__echo", "--", "echo something")
	e.wantCode(0)
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests\nstderr: %s", len(reqs), e.stderr)
	}
	names := requestTools(t, reqs[0])
	i := slices.Index(names, "mcp__everything__echo")
	if i < 0 {
		t.Fatalf("tools sent = %v", names)
	}
	// Built-ins first, then MCP tools sorted.
	for _, n := range names[:slices.IndexFunc(names, func(n string) bool { return strings.HasPrefix(n, "mcp__") })] {
		if strings.HasPrefix(n, "mcp__") {
			t.Errorf("MCP tool %s among the built-ins", n)
		}
	}
	mcpNames := slices.DeleteFunc(slices.Clone(names), func(n string) bool { return !strings.HasPrefix(n, "mcp__") })
	if !slices.IsSorted(mcpNames) {
		t.Errorf("MCP tools not sorted: %v", mcpNames)
	}
	if got := resultTextOf(t, reqs[1], "anthropic"); !strings.Contains(got, "Echo: hello from the model") {
		t.Errorf("tool result = %q", got)
	}
	if strings.TrimSpace(e.stdout) != "done" {
		t.Errorf("stdout = %q", e.stdout)
	}
}

func TestMCPDenyRemovesServerToolsEvenInBypass(t *testing.T) {
	fs := npmServer(t, "server-filesystem")
	bin := reinsBinary(t)
	srv := llmtest.NewAnthropicServer(t, llmtest.Say("ok"))
	e := newE2E(t, bin).anthropic(srv)
	e.env = append(e.env, "ENABLE_TOOL_SEARCH=false", "IS_SANDBOX=1")
	config := fmt.Sprintf(`{"mcpServers": {"filesystem": {"command": "node", "args": [%q]}}}`, fs)
	e.run("-p", "--mcp-config", config, "--dangerously-skip-permissions", "--disallowedTools", "mcp__filesystem", "--", "hi")
	e.wantCode(0)
	for _, n := range requestTools(t, srv.Requests()[0]) {
		if strings.HasPrefix(n, "mcp__filesystem") {
			t.Errorf("%s was sent despite the deny", n)
		}
	}
	// Without the deny the tools are there: the test can fail.
	srv2 := llmtest.NewAnthropicServer(t, llmtest.Say("ok"))
	e2 := newE2E(t, bin).anthropic(srv2)
	e2.env = append(e2.env, "ENABLE_TOOL_SEARCH=false", "IS_SANDBOX=1")
	e2.run("-p", "--mcp-config", config, "--dangerously-skip-permissions", "hi")
	e2.wantCode(0)
	if !slices.Contains(requestTools(t, srv2.Requests()[0]), "mcp__filesystem__read_text_file") {
		t.Errorf("filesystem tools missing without a deny: %v\n%s", requestTools(t, srv2.Requests()[0]), e2.stderr)
	}
}

func TestMCPDeferredToolsAndToolSearch(t *testing.T) {
	everything := npmServer(t, "server-everything")
	bin := reinsBinary(t)
	srv := llmtest.NewAnthropicServer(t,
		llmtest.UseTools(llmtest.Call("ToolSearch", `{"query":"select:mcp__everything__get-sum"}`)),
		llmtest.UseTools(llmtest.Call("mcp__everything__get-sum", `{"a":2,"b":3}`)),
		llmtest.Say("5"))
	e := newE2E(t, bin).anthropic(srv)
	e.env = append(e.env, "ENABLE_TOOL_SEARCH=true")
	config := fmt.Sprintf(`{"mcpServers": {"everything": {"command": "node", "args": [%q]}}}`, everything)
	e.run("-p", "--mcp-config", config, "--allowedTools", "ToolSearch,mcp__everything__get-sum", "--", "add")
	e.wantCode(0)
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests\n%s", len(reqs), e.stderr)
	}
	first, second := requestTools(t, reqs[0]), requestTools(t, reqs[1])
	if !slices.Contains(first, "ToolSearch") || slices.ContainsFunc(first, func(n string) bool { return strings.HasPrefix(n, "mcp__") }) {
		t.Errorf("first request tools = %v", first)
	}
	if !slices.Contains(second, "mcp__everything__get-sum") || slices.Contains(second, "mcp__everything__echo") {
		t.Errorf("second request tools = %v", second)
	}
	if got := resultTextOf(t, reqs[2], "anthropic"); !strings.Contains(got, "5") {
		t.Errorf("get-sum result = %q", got)
	}
}

func TestMCPPermissionsCheckWithoutServer(t *testing.T) {
	bin := reinsBinary(t)
	e := newE2E(t, bin)
	// The configured server does not exist: permissions check never starts it.
	e.write(".mcp.json", `{"mcpServers": {"srv": {"command": "/nonexistent/server"}}}`)
	e.run("permissions", "check", "--tool", "mcp__srv__tool", "--allowedTools", "mcp__srv")
	e.wantCode(0)
	if !strings.Contains(e.stdout, "allow") {
		t.Errorf("stdout = %s", e.stdout)
	}
}

func TestMCPCommands(t *testing.T) {
	bin := reinsBinary(t)
	e := newE2E(t, bin)
	e.run("mcp", "add", "--scope", "user", "one", "--", "/nonexistent/one", "-v")
	e.wantCode(0)
	e.run("mcp", "add-json", "two", `{"type":"http","url":"http://127.0.0.1:1/mcp"}`)
	e.wantCode(0)
	e.run("mcp", "add", "--scope", "project", "three", "--", "srv")
	e.wantCode(0)
	e.run("mcp", "add-json", "bad", `{"type":"stdio"}`)
	e.wantCode(2)
	if !strings.Contains(e.stderr, `server "bad": a stdio server needs a command`) {
		t.Errorf("stderr = %s", e.stderr)
	}
	e.run("mcp", "list")
	e.wantCode(0)
	for _, want := range []string{
		"one   user     stdio  failed",
		"three  project  stdio  needs approval",
		"two    local    http   failed",
	} {
		fields := strings.Fields(want)
		found := false
		for _, line := range strings.Split(e.stdout, "\n") {
			if slices.Equal(strings.Fields(line)[:min(len(fields), len(strings.Fields(line)))], fields) {
				found = true
			}
		}
		if !found {
			t.Errorf("no line %q in\n%s", want, e.stdout)
		}
	}
	// A project server starts once the project is trusted and the server approved.
	e.run("trust", e.dir)
	e.wantCode(0)
	e.run("mcp", "approve", "three")
	e.wantCode(0)
	e.run("mcp", "get", "three")
	e.wantCode(0)
	if !strings.Contains(e.stdout, "Status: failed") {
		t.Errorf("approved server was not started: %s", e.stdout)
	}
	e.run("mcp", "approve", "--reject", "three")
	e.wantCode(0)
	e.run("mcp", "get", "three")
	if !strings.Contains(e.stdout, "Status: disabled") {
		t.Errorf("rejected server: %s", e.stdout)
	}
	e.run("mcp", "approve", "nope")
	e.wantCode(2)
	e.run("mcp", "get", "one")
	e.wantCode(0)
	if !strings.Contains(e.stdout, "Command: /nonexistent/one -v") {
		t.Errorf("get: %s", e.stdout)
	}
	e.run("mcp", "remove", "one")
	e.wantCode(0)
	e.run("mcp", "get", "one")
	e.wantCode(2)
	// A broken .mcp.json stops with its position.
	e.write(".mcp.json", "{\"mcpServers\": {\n  \"x\": {\"command\": [\"a\"]}}}")
	e.run("mcp", "list")
	e.wantCode(1)
	if !strings.Contains(e.stderr, ".mcp.json:2:20: command must be a string") {
		t.Errorf("stderr = %s", e.stderr)
	}
}
