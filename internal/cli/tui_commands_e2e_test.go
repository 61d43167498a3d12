package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reinsdev/reins/llm/llmtest"
)

// TestInteractiveIgnoredRules: in a folder left untrusted at the trust dialog, /permissions
// names the team's allow rules that were not read (count, file:line, why), and the "?" view of
// the dialog of a call they could have allowed says so too.
func TestInteractiveIgnoredRules(t *testing.T) {
	e := newE2E(t, reinsBinary(t))
	if err := os.MkdirAll(filepath.Join(e.dir, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.write(".claude/settings.json", `{
  "permissions": {
    "allow": ["Bash(touch made.txt)", "Bash(ls)"]
  }
}`)
	srv := llmtest.NewAnthropicServer(t,
		llmtest.UseTools(llmtest.Call("Bash", `{"command":"touch made.txt","description":"Create the file"}`)),
		llmtest.Say("Done."))
	e.anthropic(srv)
	r := startTUI(t, e)
	r.waitFor("Do you trust the files in this folder?")
	r.keys("2")
	r.waitFor("default mode")
	r.typeText("/permissions")
	r.keys("Enter")
	r.waitFor("Ignored rules:", "2 allow entries not read  .claude/settings.json:3:14  untrusted")
	r.typeText("make a file")
	r.keys("Enter")
	r.waitFor("Do you want to proceed?", "touch made.txt")
	r.typeText("?")
	r.waitFor("Ignored rules that could have decided this call:", "2 allow entries in .claude/settings.json:3:14 not read: the folder is not trusted")
	r.keys("6")
	deadline := time.Now().Add(20 * time.Second)
	for strings.Contains(r.screen(), "Do you want to proceed?") {
		if time.Now().After(deadline) {
			t.Fatalf("the dialog stayed after No:\n%s", r.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
	r.quit()
}

// TestInteractiveAgentsAndMCP: /agents lists the built-in agent types and a project's; /mcp
// shows a server that failed at start with why, and /mcp reconnect starts it again: its tools
// reach the model in the next request.
func TestInteractiveAgentsAndMCP(t *testing.T) {
	server := goMCPServer(t)
	e := newE2E(t, reinsBinary(t))
	e.run("trust", e.dir)
	e.wantCode(0)
	if err := os.MkdirAll(filepath.Join(e.dir, ".claude", "agents"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.write(".claude/agents/reviewer.md", "---\nname: reviewer\ndescription: Reviews a diff for the team\n---\nReview the diff.\n")
	// The server fails its first start (as one whose token is not set yet would) and starts
	// the second time.
	marker := filepath.Join(e.dir, "started-once")
	flaky := e.write("flaky.sh", fmt.Sprintf("#!/bin/sh\nif [ ! -e %s ]; then touch %s; echo 'fatal: token not set' >&2; exit 1; fi\nexec %s\n",
		shellQuote(marker), shellQuote(marker), shellQuote(server)))
	if err := os.Chmod(flaky, 0o755); err != nil {
		t.Fatal(err)
	}
	e.write("mcp.json", fmt.Sprintf(`{"mcpServers": {"flaky": {"command": %q, "env": {"REINS_TEST_MCP_SERVER": "basic"}}}}`, flaky))
	srv := llmtest.NewAnthropicServer(t, llmtest.Say("hello there"))
	e.anthropic(srv)
	e.env = append(e.env, "ENABLE_TOOL_SEARCH=false")
	r := startTUI(t, e, "--mcp-config", filepath.Join(e.dir, "mcp.json"))
	r.waitFor("default mode")
	r.typeText("/agents")
	r.keys("Enter")
	r.waitFor("general-purpose (built-in)", "Explore (built-in)", "reviewer (project, .claude/agents/reviewer.md)")
	r.typeText("/mcp")
	r.keys("Enter")
	r.waitFor("MCP servers", "flaky  failed", "token not set")
	r.keys("Escape")
	r.waitGone("Choose a server for its tools")
	r.typeText("/mcp reconnect flaky")
	r.keys("Enter")
	r.waitFor("MCP server flaky reconnected.", "connected")
	r.typeText("hi")
	r.keys("Enter")
	r.waitFor("hello there")
	reqs := srv.Requests()
	if tools := requestTools(t, reqs[len(reqs)-1]); !slices.Contains(tools, "mcp__flaky__echo") {
		t.Errorf("the reconnected server's tools did not reach the model: %v", tools)
	}
	r.quit()
}

// TestInteractiveResumePicker: /resume opens a picker of the folder's sessions, newest (this
// one) first; Esc keeps the session, ↓ Enter switches to the earlier one.
func TestInteractiveResumePicker(t *testing.T) {
	e := newE2E(t, reinsBinary(t))
	e.run("trust", e.dir)
	e.wantCode(0)
	srv := llmtest.NewAnthropicServer(t, llmtest.Say("first answer"), llmtest.Say("second answer"))
	e.anthropic(srv)
	r := startTUI(t, e)
	r.waitFor("default mode")
	r.typeText("the first question")
	r.keys("Enter")
	r.waitFor("first answer")
	r.quit()

	r = startTUI(t, e)
	r.waitFor("default mode")
	r.typeText("the second question")
	r.keys("Enter")
	r.waitAnswer("second answer")
	r.typeText("/resume")
	r.keys("Enter")
	s := r.waitFor("Resume a session of this folder", "this session", "↑↓ select · enter choose · esc close")
	if strings.Count(s, "❯") != 1 {
		t.Errorf("want one selected session:\n%s", s)
	}
	r.keys("Escape")
	r.waitFor("Resume cancelled: this session goes on.")
	r.typeText("/resume")
	r.keys("Enter")
	r.waitFor("Resume a session of this folder")
	r.keys("Down", "Enter")
	r.waitFor("Resumed session", "the first question", "first answer")
	r.quit()
}
