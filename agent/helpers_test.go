package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/llmtest"
	"github.com/reinsdev/reins/permission"
)

// say is a reply that ends the turn with text.
func say(text string) llmtest.Answer {
	return llmtest.Respond(llmtest.Response(llm.StopEndTurn, llm.Text(text)))
}

// use is a reply that calls tools; calls alternate name and JSON input.
func use(calls ...string) llmtest.Answer {
	return func(_ context.Context, req *llm.Request) (*llm.Response, error) {
		var blocks []llm.Block
		for i := 0; i+1 < len(calls); i += 2 {
			id := fmt.Sprintf("toolu_%d_%d", len(req.Messages), i/2)
			blocks = append(blocks, llm.ToolUse(id, calls[i], json.RawMessage(calls[i+1])))
		}
		return llmtest.Response(llm.StopToolUse, blocks...), nil
	}
}

type echoIn struct {
	Text string `json:"text,omitempty"`
}

func allow(context.Context, *permission.Context, echoIn) permission.Decision {
	return permission.Decision{Behavior: permission.Allow}
}

// newPerms is a permission state in default mode rooted at a temp dir.
func newPerms(t testing.TB, rules ...permission.Rule) *Permissions {
	t.Helper()
	pc, err := permission.New(permission.Config{Cwd: t.TempDir(), Home: t.TempDir(), Rules: rules})
	if err != nil {
		t.Fatal(err)
	}
	return NewPermissions(pc, nil)
}

// lastResults returns the tool_result blocks the agent sent in its last request.
func lastResults(t *testing.T, p *llmtest.Script) []llm.Block {
	t.Helper()
	reqs := p.Requests()
	if len(reqs) == 0 {
		t.Fatal("no requests")
	}
	msgs := reqs[len(reqs)-1].Messages
	last := msgs[len(msgs)-1]
	if last.Role != llm.RoleUser {
		t.Fatalf("last message role %s, want user", last.Role)
	}
	return last.Content
}

func resultText(b llm.Block) string {
	s := ""
	for _, c := range b.Content {
		s += c.Text
	}
	return s
}
