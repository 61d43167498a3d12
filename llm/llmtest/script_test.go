package llmtest

import (
	"context"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm"
)

func TestScript(t *testing.T) {
	s := NewScript(Respond(Response(llm.StopEndTurn, llm.Text("one"))))
	var deltas []string
	onEvent := func(e llm.Event) { deltas = append(deltas, e.Text) }

	resp, err := s.Stream(t.Context(), &llm.Request{Messages: []llm.Message{llm.UserText("hi")}}, onEvent)
	if err != nil || resp.Message.Text() != "one" {
		t.Fatalf("first request: %v, %v", resp, err)
	}
	if strings.Join(deltas, "") != "one" {
		t.Errorf("streamed %q, want the reply's text", deltas)
	}
	if _, err := s.Stream(t.Context(), &llm.Request{}, onEvent); err == nil || !strings.Contains(err.Error(), "no answer for request 2") {
		t.Errorf("request beyond the script: %v", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := s.Stream(ctx, &llm.Request{}, onEvent); err != context.Canceled {
		t.Errorf("cancelled request: %v", err)
	}
	if reqs := s.Requests(); len(reqs) != 2 || reqs[0].Messages[0].Text() != "hi" {
		t.Errorf("recorded %d requests (%v), want the two that reached the script", len(reqs), reqs)
	}
}
