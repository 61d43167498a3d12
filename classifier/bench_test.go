package classifier

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/anthropic"
	"github.com/reinsdev/reins/llm/llmtest"
	"github.com/reinsdev/reins/permission"
)

// benchTranscript is a session of 40 turns: a prompt, and for each turn a call and a result
// of 4 KB (which the classifier leaves out).
func benchTranscript() []llm.Message {
	msgs := []llm.Message{llm.UserText("Refactor the parser into its own package and keep the tests green.")}
	page := strings.Repeat("some file content ", 220)
	for i := range 40 {
		id := fmt.Sprintf("t%d", i)
		msgs = append(msgs, assistant(llm.Text("Next I will look at the code."), toolUse(id, "Bash", fmt.Sprintf(`{"command":"go test ./pkg%d/..."}`, i))),
			results(llm.ToolResult(id, []llm.Block{llm.Text(page)}, false)))
	}
	return msgs
}

// BenchmarkClassifyFakeAPI is one judged call that misses the cache, through the Anthropic
// adapter to the fake API on loopback: the document, the request, the stream and the
// verdict — the classifier's local part, without the model's own time.
func BenchmarkClassifyFakeAPI(b *testing.B) {
	srv := llmtest.NewAnthropicServer(b, llmtest.UseTools(llmtest.Call(VerdictTool, `{"decision":"allow","reason":"runs the tests"}`)))
	srv.Repeat()
	p := anthropic.New(anthropic.Options{APIKey: "k", BaseURL: srv.URL})
	c := &Classifier{Provider: p, Model: "claude-haiku-4-5"}
	ctx := llm.WithTranscript(context.Background(), benchTranscript(), false)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		v, err := c.Classify(ctx, permission.ClassifyRequest{Tool: "Bash", Input: map[string]string{"command": fmt.Sprintf("go build ./cmd/%d", i)}})
		if err != nil || v.Block {
			b.Fatal(v, err)
		}
	}
}

// BenchmarkClassifyCached is the same call judged before: the document and the hash only.
func BenchmarkClassifyCached(b *testing.B) {
	c := &Classifier{Provider: llmtest.NewScript(verdictAnswer("allow", "ok")), Model: "m"}
	ctx := llm.WithTranscript(context.Background(), benchTranscript(), false)
	req := permission.ClassifyRequest{Tool: "Bash", Input: map[string]string{"command": "go build ./..."}}
	if _, err := c.Classify(ctx, req); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Classify(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}
