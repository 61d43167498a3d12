package llmtest

import (
	"context"
	"fmt"
	"sync"

	"github.com/reinsdev/reins/llm"
)

// Script is an in-process [llm.Provider] for tests that drive an agent without HTTP. It plays
// one [Answer] per request, in order, streams the text and thinking blocks of each reply as
// deltas, and
// records a copy of every request. A request beyond the end of the script, or one whose
// context is already cancelled, is an error returned to the caller, as a real provider's
// failure would be.
type Script struct {
	mu      sync.Mutex
	answers []Answer
	reqs    []*llm.Request
}

// Answer produces the reply to one request. It sees the request, so that a test can answer
// what the client sent, and its context, so that it can wait until the request is cancelled.
type Answer func(ctx context.Context, req *llm.Request) (*llm.Response, error)

// NewScript returns a provider that plays answers, one per request.
func NewScript(answers ...Answer) *Script { return &Script{answers: answers} }

// Name implements [llm.Provider].
func (s *Script) Name() string { return "script" }

// Stream implements [llm.Provider].
func (s *Script) Stream(ctx context.Context, req *llm.Request, onEvent func(llm.Event)) (*llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	n := len(s.reqs)
	cp := *req
	cp.Messages = append([]llm.Message(nil), req.Messages...)
	s.reqs = append(s.reqs, &cp)
	if n >= len(s.answers) {
		s.mu.Unlock()
		return nil, fmt.Errorf("llmtest: the script has no answer for request %d", n+1)
	}
	answer := s.answers[n]
	s.mu.Unlock()
	resp, err := answer(ctx, req)
	if err != nil {
		return nil, err
	}
	for i, b := range resp.Message.Content {
		switch {
		case onEvent == nil:
		case b.Type == llm.BlockText:
			onEvent(llm.Event{Type: llm.EventTextDelta, Index: i, Text: b.Text})
		case b.Type == llm.BlockThinking:
			onEvent(llm.Event{Type: llm.EventThinkingDelta, Index: i, Text: b.Thinking})
		}
	}
	return resp, nil
}

// Requests returns a copy of the requests received so far, in order.
func (s *Script) Requests() []*llm.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*llm.Request(nil), s.reqs...)
}

// Respond is an Answer that replies with resp whatever the request.
func Respond(resp *llm.Response) Answer {
	return func(context.Context, *llm.Request) (*llm.Response, error) { return resp, nil }
}

// Response is an assistant reply made of blocks, with a fixed model and usage.
func Response(stop llm.StopReason, blocks ...llm.Block) *llm.Response {
	return &llm.Response{
		Message:    llm.Message{Role: llm.RoleAssistant, Content: blocks},
		StopReason: stop,
		Usage:      llm.Usage{InputTokens: 10, OutputTokens: 5},
		Model:      "claude-sonnet-4-5",
	}
}
