package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/llmtest"
)

// TestAgentSDKFidelity drives reins with the real Agent SDK through the messages and hooks in
// which it differed from Claude Code (issue 41): each scenario checks what the SDK saw, and
// the test what the model was sent and what happened on disk.
func TestAgentSDKFidelity(t *testing.T) {
	node := nodeSDK(t)
	bin := reinsBinary(t)
	touch := llmtest.UseTools(llmtest.Call("Bash", `{"command":"touch out.txt","description":"Create out.txt"}`))

	t.Run("an updatedInput only no rule allows is not asked about again", func(t *testing.T) {
		e := newE2E(t, bin)
		srv := llmtest.NewAnthropicServer(t, touch, llmtest.Say("Done."))
		e.anthropic(srv).drive(node, "substitutedAllowed")
		if _, err := os.Stat(filepath.Join(e.dir, "other.txt")); err != nil {
			t.Errorf("the caller's substitute did not run: %v", err)
		}
		if _, err := os.Stat(filepath.Join(e.dir, "out.txt")); err == nil {
			t.Error("the model's own command ran instead of the substitute")
		}
	})

	t.Run("ExitPlanMode approved reports the mode", func(t *testing.T) {
		e := newE2E(t, bin)
		srv := llmtest.NewAnthropicServer(t,
			llmtest.UseTools(llmtest.Call("ExitPlanMode", `{"plan":"1. Create out.txt"}`)),
			llmtest.Say("Plan approved."))
		e.anthropic(srv).drive(node, "planExit")
	})

	t.Run("resumeSessionAt", func(t *testing.T) {
		e := newE2E(t, bin)
		srv := llmtest.NewAnthropicServer(t, llmtest.Say("first"), llmtest.Say("second"), llmtest.Say("third"))
		e.anthropic(srv).drive(node, "resumeAt")
		reqs := srv.Requests()
		if len(reqs) != 3 {
			t.Fatalf("%d requests, want 3", len(reqs))
		}
		msgs := decodeRequest(t, reqs[2]).Messages
		var texts []string
		for _, m := range msgs {
			texts = append(texts, m.Text())
		}
		if got := strings.Join(texts, "|"); got != "one|first|three" {
			t.Errorf("the resumed request holds %q, want the conversation up to the first reply, then the new prompt", got)
		}
	})

	t.Run("a PostToolUse callback's continue false is hook_stopped", func(t *testing.T) {
		e := newE2E(t, bin)
		srv := llmtest.NewAnthropicServer(t, touch, llmtest.Say("Should not be asked."))
		e.anthropic(srv).drive(node, "hookStopped")
		if n := srv.Served(); n != 1 {
			t.Errorf("%d requests after the hook stopped the turn, want 1", n)
		}
	})

	t.Run("a PreToolUse callback's systemMessage", func(t *testing.T) {
		e := newE2E(t, bin)
		srv := llmtest.NewAnthropicServer(t, touch, llmtest.Say("Done."))
		e.anthropic(srv).drive(node, "hookSystemMessage")
	})

	t.Run("a SubagentStop callback", func(t *testing.T) {
		e := newE2E(t, bin)
		srv := llmtest.NewAnthropicServer(t,
			llmtest.UseTools(llmtest.Call("Agent", `{"description":"review","prompt":"Review the code","subagent_type":"reviewer"}`)),
			llmtest.Say("No bugs."),
			llmtest.Say("Reviewed."))
		e.anthropic(srv).drive(node, "subagentStop")
	})

	t.Run("a SessionStart callback", func(t *testing.T) {
		e := newE2E(t, bin)
		srv := llmtest.NewAnthropicServer(t, llmtest.Say("hi"))
		e.anthropic(srv).drive(node, "sessionStart")
		var body struct {
			System []struct {
				Text string `json:"text"`
			} `json:"system"`
		}
		srv.Requests()[0].Decode(&body)
		var system string
		for _, b := range body.System {
			system += b.Text
		}
		if !strings.Contains(system, "context from the SDK SessionStart") {
			t.Errorf("the SessionStart callback's context is not in the system prompt: %.500s", system)
		}
	})

	t.Run("continue near the window compacts first", func(t *testing.T) {
		e := newE2E(t, bin)
		near := llmtest.Say("First answer.")
		near.Usage = llm.Usage{InputTokens: 190_000, OutputTokens: 100}
		srv := llmtest.NewAnthropicServer(t, near,
			llmtest.Say("<summary>We said hello.</summary>"),
			llmtest.Say("Went on."))
		e.anthropic(srv)
		e.run("-p", "hello").wantCode(0)
		e.drive(node, "continued")
		reqs := srv.Requests()
		if len(reqs) != 3 || !decodeRequest(t, reqs[1]).isSummary() {
			t.Fatalf("%d requests; want the first turn, the summary request, then the continued turn", len(reqs))
		}
		// As in Claude Code, the prompt is summarized with the rest, and the model goes on from
		// the summary.
		if summary := decodeRequest(t, reqs[1]); !strings.Contains(summary.text(), "First answer.") || !strings.Contains(summary.text(), "go on") {
			t.Errorf("the summary request lacks the conversation or the prompt: %.800s", summary.text())
		}
		if after := decodeRequest(t, reqs[2]); len(after.Messages) != 1 || !strings.Contains(after.text(), "We said hello.") {
			t.Errorf("the continued turn holds %d messages: %.500s", len(after.Messages), after.text())
		}
	})
}
