package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm/llmtest"
)

// exploreRemove is the script in which the main agent sends an Explore sub-agent that tries
// to remove keep.txt; headless, its ask is a denial.
func exploreRemove(t *testing.T, e *e2e) *llmtest.Server {
	e.write("keep.txt", "keep me\n")
	return llmtest.NewAnthropicServer(t,
		llmtest.UseTools(llmtest.Call("Agent", `{"description":"clean up","prompt":"Remove keep.txt","subagent_type":"Explore"}`)),
		llmtest.UseTools(llmtest.Call("Bash", `{"command":"rm -f keep.txt","description":"Remove keep.txt"}`)),
		llmtest.Say("I could not remove it."),
		llmtest.Say("It stays."))
}

// TestSubAgentDenialsE2E: a denied call inside an Explore run is in the result's
// permission_denials and the -p stderr summary, naming the sub-agent.
func TestSubAgentDenialsE2E(t *testing.T) {
	bin := reinsBinary(t)
	const agentCall = "toolu_llmtest_1_0"

	t.Run("the stderr summary of -p", func(t *testing.T) {
		e := newE2E(t, bin)
		e.anthropic(exploreRemove(t, e)).run("-p", "remove keep.txt")
		e.wantCode(0)
		want := "1 tool call(s) were denied: Bash(rm -f keep.txt) in sub-agent Explore (" + agentCall + ")"
		if !strings.Contains(e.stderr, want) {
			t.Errorf("stderr %q, want %q", e.stderr, want)
		}
		if _, err := os.Stat(filepath.Join(e.dir, "keep.txt")); err != nil {
			t.Errorf("keep.txt is gone: %v", err)
		}
	})

	t.Run("the result line of stream-json", func(t *testing.T) {
		e := newE2E(t, bin)
		e.anthropic(exploreRemove(t, e)).run("-p", "--output-format", "stream-json", "--verbose", "remove keep.txt")
		e.wantCode(0)
		lines := strings.Split(strings.TrimSpace(e.stdout), "\n")
		var res struct {
			Type    string `json:"type"`
			Denials []struct {
				ToolName  string          `json:"tool_name"`
				ToolInput json.RawMessage `json:"tool_input"`
				Parent    string          `json:"parent_tool_use_id"`
				AgentType string          `json:"agent_type"`
			} `json:"permission_denials"`
		}
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil || res.Type != "result" {
			t.Fatalf("last line %q: %v", lines[len(lines)-1], err)
		}
		if len(res.Denials) != 1 {
			t.Fatalf("permission_denials %+v, want the sub-agent's Bash call", res.Denials)
		}
		d := res.Denials[0]
		if d.ToolName != "Bash" || !strings.Contains(string(d.ToolInput), "rm -f keep.txt") || d.Parent != agentCall || d.AgentType != "Explore" {
			t.Errorf("denial %+v", d)
		}
	})

	t.Run("the result the Agent SDK reads", func(t *testing.T) {
		node := nodeSDK(t)
		e := newE2E(t, bin)
		e.anthropic(exploreRemove(t, e)).drive(node, "subAgentDenial")
	})
}
