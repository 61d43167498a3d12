package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm/llmtest"
)

// TestAgentSDKInitialize drives reins with the real Agent SDK's agents and hooks options, which
// reach reins in the initialize request.
func TestAgentSDKInitialize(t *testing.T) {
	node := nodeSDK(t)
	bin := reinsBinary(t)

	t.Run("agents from initialize run through the Agent tool", func(t *testing.T) {
		e := newE2E(t, bin)
		srv := llmtest.NewAnthropicServer(t,
			llmtest.UseTools(llmtest.Call("Agent", `{"description":"review","prompt":"Review the code","subagent_type":"reviewer"}`)),
			llmtest.Say("No bugs."),
			llmtest.Say("Reviewed."))
		e.anthropic(srv).drive(node, "agents")
		reqs := srv.Requests()
		if len(reqs) != 3 {
			t.Fatalf("%d requests, want 3", len(reqs))
		}
		var sub struct {
			System []struct {
				Text string `json:"text"`
			} `json:"system"`
		}
		if err := reqs[1].Decode(&sub); err != nil {
			t.Fatal(err)
		}
		var system string
		for _, b := range sub.System {
			system += b.Text
		}
		if !strings.Contains(system, "You are the SDK reviewer agent.") {
			t.Errorf("the sub-agent's system prompt is not the SDK definition's: %q", system)
		}
		tools := requestTools(t, reqs[1])
		slices.Sort(tools)
		if !slices.Equal(tools, []string{"Grep", "Read"}) {
			t.Errorf("the sub-agent was offered %v, want its definition's Grep and Read", tools)
		}
		if got := jsonText(toolResults(t, reqs[2])); !strings.Contains(got, "No bugs.") {
			t.Errorf("Agent result %s", got)
		}
	})

	touch := llmtest.UseTools(llmtest.Call("Bash", `{"command":"touch out.txt","description":"Create out.txt"}`))

	t.Run("a PreToolUse hook callback blocks a Bash call", func(t *testing.T) {
		e := newE2E(t, bin)
		srv := llmtest.NewAnthropicServer(t, touch, llmtest.Say("Blocked."))
		e.anthropic(srv).drive(node, "hookDeny")
		if _, err := os.Stat(filepath.Join(e.dir, "out.txt")); err == nil {
			t.Error("the blocked call ran")
		}
		results := toolResults(t, srv.Requests()[1])
		if len(results) != 1 || !results[0].IsError || !strings.Contains(jsonText(results), "blocked by the SDK hook") {
			t.Errorf("the model got %s, want the hook's reason", jsonText(results))
		}
	})

	t.Run("a hook callback's allow does not outrank a deny rule", func(t *testing.T) {
		e := newE2E(t, bin)
		os.MkdirAll(filepath.Join(e.dir, ".claude"), 0o755)
		e.write(".claude/settings.json", `{"permissions":{"deny":["Bash(touch:*)"]}}`)
		srv := llmtest.NewAnthropicServer(t, touch, llmtest.Say("Denied."))
		e.anthropic(srv).drive(node, "hookAllowUnderDeny")
		if _, err := os.Stat(filepath.Join(e.dir, "out.txt")); err == nil {
			t.Error("the call ran under a deny rule")
		}
		results := toolResults(t, srv.Requests()[1])
		if len(results) != 1 || !results[0].IsError {
			t.Errorf("the model got %s, want a denial", jsonText(results))
		}
	})

	t.Run("an MCP server's request for input goes to onElicitation", func(t *testing.T) {
		server := goMCPServer(t)
		e := newE2E(t, bin)
		e.env = append(e.env, "REINS_TEST_MCP_BIN="+server)
		srv := llmtest.NewAnthropicServer(t, llmtest.UseTools(llmtest.Call("mcp__srv__ask", `{}`)), llmtest.Say("Hello Ada."))
		e.anthropic(srv).drive(node, "elicit")
		if got := jsonText(toolResults(t, srv.Requests()[1])); !strings.Contains(got, "action=accept name=Ada") {
			t.Errorf("the tool result is %s, want the caller's answer", got)
		}
	})
}
