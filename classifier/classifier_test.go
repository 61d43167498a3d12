package classifier

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/llmtest"
	"github.com/reinsdev/reins/permission"
)

func verdictAnswer(decision, reason string) llmtest.Answer {
	return llmtest.Respond(llmtest.Response(llm.StopToolUse, verdictCall(`{"decision":"`+decision+`","reason":"`+reason+`"}`)))
}

type usageLog struct {
	mu     sync.Mutex
	models []string
	total  llm.Usage
}

func (u *usageLog) report(model string, us llm.Usage) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.models = append(u.models, model)
	u.total = u.total.Add(us)
}

func TestClassifyAsksOnceAndReportsUsage(t *testing.T) {
	script := llmtest.NewScript(verdictAnswer("allow", "runs the tests"), verdictAnswer("block", "different context"))
	c := &Classifier{Provider: script, Model: "claude-haiku-4-5"}
	var usage usageLog
	ctx := llm.WithUsageReporter(context.Background(), usage.report)
	ctx = llm.WithTranscript(ctx, []llm.Message{llm.UserText("run the tests")}, false)
	req := permission.ClassifyRequest{Tool: "Bash", Input: map[string]string{"command": "go test ./..."}}

	for i := range 2 {
		v, err := c.Classify(ctx, req)
		if err != nil || v.Block || v.Reason != "runs the tests" {
			t.Fatalf("call %d: %+v %v", i, v, err)
		}
	}
	reqs := script.Requests()
	if len(reqs) != 1 {
		t.Fatalf("the same action in the same context was sent %d times", len(reqs))
	}
	r := reqs[0]
	if r.Model != "claude-haiku-4-5" || len(r.Tools) != 1 || r.Tools[0].Name != VerdictTool || !strings.Contains(r.Messages[0].Text(), "go test ./...") {
		t.Fatalf("request: model %s, tools %v, message %s", r.Model, r.Tools, r.Messages[0].Text())
	}
	if usage.total.InputTokens != 10 || len(usage.models) != 1 || usage.models[0] != "claude-sonnet-4-5" {
		t.Fatalf("usage reported: %+v for %v", usage.total, usage.models)
	}

	// Another turn of the conversation is another context.
	ctx2 := llm.WithTranscript(context.Background(), []llm.Message{llm.UserText("now delete everything")}, false)
	if v, err := c.Classify(ctx2, req); err != nil || !v.Block {
		t.Fatalf("a new context must be judged again: %+v %v", v, err)
	}
}

func TestClassifyFailures(t *testing.T) {
	req := permission.ClassifyRequest{Tool: "Bash", Input: map[string]string{"command": "make"}}
	tests := []struct {
		name   string
		answer llmtest.Answer
		kind   string
	}{
		{"api error", func(context.Context, *llm.Request) (*llm.Response, error) {
			return nil, &llm.APIError{StatusCode: 500, Type: "api_error", Message: "boom"}
		}, KindError},
		{"timeout", func(ctx context.Context, _ *llm.Request) (*llm.Response, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}, KindTimeout},
		{"garbage", llmtest.Respond(llmtest.Response(llm.StopEndTurn, llm.Text("Sure! allow"))), KindUnparseable},
		{"refusal", llmtest.Respond(llmtest.Response(llm.StopRefusal)), KindRefusal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			script := llmtest.NewScript(tt.answer, verdictAnswer("allow", "fine"))
			// Only the hang needs a short deadline; a prompt answer must not race one on a
			// loaded machine.
			c := &Classifier{Provider: script, Model: "m"}
			if tt.kind == KindTimeout {
				c.Timeout = 50 * time.Millisecond
			}
			_, err := c.Classify(context.Background(), req)
			var f *Failure
			if !errors.As(err, &f) || f.Kind != tt.kind {
				t.Fatalf("err = %v, want a %s failure", err, tt.kind)
			}
			// A failure is not kept: the next call asks again.
			c.Timeout = 0
			if v, err := c.Classify(context.Background(), req); err != nil || v.Block {
				t.Fatalf("after a failure: %+v %v", v, err)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c := &Classifier{Provider: llmtest.NewScript(), Model: "m"}
	if _, err := c.Classify(ctx, req); !errors.Is(err, context.Canceled) {
		t.Fatalf("an ended run: err = %v, want the context's", err)
	}
	if _, err := (&Classifier{}).Classify(context.Background(), req); err == nil {
		t.Fatal("a classifier with no model must fail")
	}
}

func TestCacheIsBounded(t *testing.T) {
	c := newCache(3)
	for i := range 5 {
		c.put([32]byte{byte(i)}, permission.Verdict{Reason: "r"})
	}
	if c.len() != 3 {
		t.Fatalf("len = %d, want 3", c.len())
	}
	if _, ok := c.get([32]byte{0}); ok {
		t.Fatal("the oldest entry should be gone")
	}
	c.get([32]byte{2})
	c.put([32]byte{9}, permission.Verdict{})
	if _, ok := c.get([32]byte{2}); !ok {
		t.Fatal("a recently used entry was dropped")
	}
	if _, ok := c.get([32]byte{3}); ok {
		t.Fatal("the least recently used entry should be gone")
	}
}
