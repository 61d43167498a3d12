package agent

import (
	"context"
	"sync"
	"testing"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/llmtest"
	"github.com/reinsdev/reins/permission"
)

// seeingClassifier records the conversation each call is judged in, and reports usage as a
// model-backed classifier does.
type seeingClassifier struct {
	mu   sync.Mutex
	seen [][]llm.Message
}

func (c *seeingClassifier) Classify(ctx context.Context, req permission.ClassifyRequest) (permission.Verdict, error) {
	t, _ := llm.TranscriptOf(ctx)
	c.mu.Lock()
	if t != nil {
		c.seen = append(c.seen, t.Messages)
	}
	c.mu.Unlock()
	llm.ReportUsage(ctx, "claude-haiku-4-5", llm.Usage{InputTokens: 1000, OutputTokens: 100})
	return permission.Verdict{Reason: "fine"}, nil
}

// TestClassifierSeesTheConversationAndCosts: auto mode's classifier is given the conversation
// at the decision (the call's own tool_use included) and its usage is the run's.
func TestClassifierSeesTheConversationAndCosts(t *testing.T) {
	p := llmtest.NewScript(use("Asky", `{"text":"x"}`, "Asky", `{"text":"y"}`), say("done"))
	pc, err := permission.New(permission.Config{Mode: permission.ModeAuto, AutoAvailable: true, Cwd: t.TempDir(), Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	cl := &seeingClassifier{}
	var bus Bus
	var mu sync.Mutex
	var usageEvents int
	unsub := bus.Subscribe(func(ev Event) {
		if ev.Type == EventUsage && ev.Response.Model == "claude-haiku-4-5" {
			mu.Lock()
			usageEvents++
			mu.Unlock()
		}
	})
	a := &Agent{Provider: p, Model: "claude-sonnet-4-5", Tools: mappingTools(), Permissions: NewPermissions(pc, nil),
		Engine: &permission.Engine{Classifier: cl}, Bus: &bus}
	res, err := a.Run(context.Background(), nil, llm.UserText("go"))
	unsub()
	if err != nil {
		t.Fatal(err)
	}
	if len(res.PermissionDenials) != 0 {
		t.Fatalf("denials: %+v", res.PermissionDenials)
	}
	if len(cl.seen) != 2 {
		t.Fatalf("classifier saw %d calls with a transcript, want 2", len(cl.seen))
	}
	msgs := cl.seen[0]
	if len(msgs) != 2 || msgs[0].Text() != "go" || len(msgs[1].ToolUses()) != 2 {
		t.Fatalf("transcript at the decision: %+v", msgs)
	}
	// Two model turns (10+5 each) and two classifier requests (1000+100 each).
	if res.Usage.InputTokens != 2020 || res.Usage.OutputTokens != 210 || res.NumTurns != 2 {
		t.Fatalf("usage %+v over %d turns", res.Usage, res.NumTurns)
	}
	want, _ := EstimateCost("claude-haiku-4-5", llm.Usage{InputTokens: 2000, OutputTokens: 200})
	turns, _ := EstimateCost("claude-sonnet-4-5", llm.Usage{InputTokens: 20, OutputTokens: 10})
	if d := res.CostUSD - (want + turns); d > 1e-12 || d < -1e-12 {
		t.Fatalf("cost %v, want %v", res.CostUSD, want+turns)
	}
	if usageEvents != 2 {
		t.Fatalf("%d usage events, want 2", usageEvents)
	}
}
