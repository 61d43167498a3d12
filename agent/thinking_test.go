package agent

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/llmtest"
)

// TestThinkingBudget: the budget goes into every request with max tokens above it, the
// thinking blocks of a tool-use turn are in the next request's history as they came, and the
// reasoning is published as thinking deltas.
func TestThinkingBudget(t *testing.T) {
	thought := []llm.Block{llm.Thinking("I should echo.", "sig=="), llm.RedactedThinking("opaque")}
	turn := llmtest.Response(llm.StopToolUse, append(thought, llm.ToolUse("t1", "Echo", json.RawMessage(`{"text":"1"}`)))...)
	p := llmtest.NewScript(llmtest.Respond(turn), say("done"))
	bus := &Bus{}
	var mu sync.Mutex
	var thinking string
	stop := bus.Subscribe(func(ev Event) {
		if ev.Type == EventThinkingDelta {
			mu.Lock()
			thinking += ev.Text
			mu.Unlock()
		}
	})
	a := &Agent{Provider: p, Model: "m", Tools: mappingTools(), Permissions: newPerms(t), ThinkingBudget: 2048, Bus: bus}
	if _, err := a.Run(context.Background(), nil, llm.UserText("go")); err != nil {
		t.Fatal(err)
	}
	stop()
	reqs := p.Requests()
	for i, r := range reqs {
		if r.ThinkingBudget != 2048 || r.MaxTokens != 2048+DefaultMaxTokens {
			t.Errorf("request %d: budget %d, max tokens %d", i, r.ThinkingBudget, r.MaxTokens)
		}
	}
	if diff := cmp.Diff(thought, reqs[1].Messages[1].Content[:2]); diff != "" {
		t.Errorf("the loop's next request lost its thinking (-want +got):\n%s", diff)
	}
	mu.Lock()
	defer mu.Unlock()
	if thinking != "I should echo." {
		t.Errorf("thinking deltas %q", thinking)
	}

	// An explicit bound is kept; without thinking the default applies.
	if got := (&Agent{MaxTokens: 5000, ThinkingBudget: 2048}).ReplyBound(); got != 5000 {
		t.Errorf("explicit max tokens became %d", got)
	}
	if got := (&Agent{}).ReplyBound(); got != DefaultMaxTokens {
		t.Errorf("default max tokens %d", got)
	}
}
