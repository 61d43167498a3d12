package cli

import (
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

// TestSubAgentDenialsE2E: a denied call inside an Explore run is in the result the Agent SDK
// reads, naming the sub-agent. The -p stderr summary and the stream-json result line are
// testdata/script/subagent-denials.txtar.
func TestSubAgentDenialsE2E(t *testing.T) {
	bin := reinsBinary(t)
	t.Run("the result the Agent SDK reads", func(t *testing.T) {
		node := nodeSDK(t)
		e := newE2E(t, bin)
		e.anthropic(exploreRemove(t, e)).drive(node, "subAgentDenial")
	})
}
