package agent

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/anthropic"
	"github.com/reinsdev/reins/llm/llmtest"
)

// summaryRequests counts the fake server's requests that asked for a summary.
func summaryRequests(srv *llmtest.Server) int {
	n := 0
	for _, r := range srv.Requests() {
		if strings.Contains(string(r.Body), compactSystem[:40]) {
			n++
		}
	}
	return n
}

// TestNoCompactionRightAfterAFailedOne: the conversation is over the threshold, the automatic
// compaction fails (the model answers without a summary), and the request then goes as it is
// and is refused as too long. The "prompt is too long" path must not compact again: the turn
// ends at once with an error that says both.
func TestNoCompactionRightAfterAFailedOne(t *testing.T) {
	srv := llmtest.NewAnthropicServer(t,
		llmtest.Say("<analysis>no summary</analysis>"),
		llmtest.PromptTooLong(),
		llmtest.Say("<summary>a second summary</summary>"),
		llmtest.Say("never"))
	a := &Agent{Provider: anthropic.New(anthropic.Options{BaseURL: srv.URL, APIKey: "test"}), Model: "claude-sonnet-4-5",
		Tools: mappingTools(), Permissions: newPerms(t), Compaction: Compaction{Window: 22_000}}
	res, err := a.Run(context.Background(), nil, llm.UserText(strings.Repeat("x", 8000)))
	if err == nil || !strings.Contains(err.Error(), "prompt is too long") || !strings.Contains(err.Error(), "automatic compaction of this turn failed") {
		t.Fatalf("Run = %v (%q), want the refusal and the failed compaction", err, res.Text)
	}
	if n, s := srv.Served(), summaryRequests(srv); n != 2 || s != 1 {
		t.Errorf("%d requests, %d of them summaries: want the failed summary and the refused turn, nothing more", n, s)
	}
}

// TestCompactionsPerRunAreCapped: every reply of a tool loop fills the window again, so every
// request needs a compaction. After MaxCompactionsPerRun of them the run ends with
// ErrCompactionLimit instead of summarizing the whole window again and again.
func TestCompactionsPerRunAreCapped(t *testing.T) {
	full := llm.Usage{InputTokens: 22_000, OutputTokens: 5}
	var turns []llmtest.Turn
	for range MaxCompactionsPerRun + 2 {
		turns = append(turns, llmtest.Turn{ToolCalls: []llmtest.ToolCall{llmtest.Call("Echo", `{"text":"more"}`)}, Usage: full},
			llmtest.Say("<summary>the work so far</summary>"))
	}
	srv := llmtest.NewAnthropicServer(t, append(turns, llmtest.Say("done"))...)
	a := &Agent{Provider: anthropic.New(anthropic.Options{BaseURL: srv.URL, APIKey: "test"}), Model: "claude-sonnet-4-5",
		Tools: mappingTools(), Permissions: newPerms(t), Compaction: Compaction{Window: 22_000}}
	res, err := a.Run(context.Background(), nil, llm.UserText("loop"))
	if !errors.Is(err, ErrCompactionLimit) {
		t.Fatalf("Run = %v (%q), want ErrCompactionLimit", err, res.Text)
	}
	if s := summaryRequests(srv); s != MaxCompactionsPerRun {
		t.Errorf("%d summary requests, want %d", s, MaxCompactionsPerRun)
	}
	if !res.IsError || !strings.Contains(err.Error(), "compactions in this turn") {
		t.Errorf("result %+v, error %v", res, err)
	}
	// A new run may compact again.
	srv2 := llmtest.NewAnthropicServer(t, llmtest.Say("<summary>s</summary>"), llmtest.Say("going on"))
	a.Provider = anthropic.New(anthropic.Options{BaseURL: srv2.URL, APIKey: "test"})
	if res, err := a.Run(context.Background(), nil, llm.UserText(strings.Repeat("x", 8000))); err != nil || res.Text != "going on" {
		t.Errorf("the next run: %v, %q", err, res.Text)
	}
}
