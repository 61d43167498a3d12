package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/permission"
)

// scripted is an in-process provider that plays one reply per request and records the
// requests. A reply function sees the request, so a test can answer what the agent sent.
type scripted struct {
	mu      sync.Mutex
	replies []func(req *llm.Request) (*llm.Response, error)
	reqs    []*llm.Request
}

func (p *scripted) Name() string { return "scripted" }

func (p *scripted) Stream(ctx context.Context, req *llm.Request, onEvent func(llm.Event)) (*llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p.mu.Lock()
	n := len(p.reqs)
	cp := *req
	cp.Messages = append([]llm.Message(nil), req.Messages...)
	p.reqs = append(p.reqs, &cp)
	if n >= len(p.replies) {
		p.mu.Unlock()
		return nil, fmt.Errorf("scripted: no reply for request %d", n+1)
	}
	reply := p.replies[n]
	p.mu.Unlock()
	resp, err := reply(req)
	if err != nil {
		return nil, err
	}
	for i, b := range resp.Message.Content {
		if b.Type == llm.BlockText && onEvent != nil {
			onEvent(llm.Event{Type: llm.EventTextDelta, Index: i, Text: b.Text})
		}
	}
	return resp, nil
}

func (p *scripted) requests() []*llm.Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*llm.Request(nil), p.reqs...)
}

// say is a reply that ends the turn with text.
func say(text string) func(*llm.Request) (*llm.Response, error) {
	return func(*llm.Request) (*llm.Response, error) {
		return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text(text)}},
			StopReason: llm.StopEndTurn, Usage: llm.Usage{InputTokens: 10, OutputTokens: 5}, Model: "claude-sonnet-4-5"}, nil
	}
}

// use is a reply that calls tools; calls alternate name and JSON input.
func use(calls ...string) func(*llm.Request) (*llm.Response, error) {
	return func(req *llm.Request) (*llm.Response, error) {
		var blocks []llm.Block
		for i := 0; i+1 < len(calls); i += 2 {
			id := fmt.Sprintf("toolu_%d_%d", len(req.Messages), i/2)
			blocks = append(blocks, llm.ToolUse(id, calls[i], json.RawMessage(calls[i+1])))
		}
		return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: blocks},
			StopReason: llm.StopToolUse, Usage: llm.Usage{InputTokens: 10, OutputTokens: 5}, Model: "claude-sonnet-4-5"}, nil
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
func lastResults(t *testing.T, p *scripted) []llm.Block {
	t.Helper()
	reqs := p.requests()
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
