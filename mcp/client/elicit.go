package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Elicitor puts a server's request for input to whoever can answer: the person in the
// interactive mode, the SDK caller (a control_request), or nobody (headless: nil declines).
type Elicitor interface {
	Elicit(ctx context.Context, req ElicitRequest) (ElicitResult, error)
}

// ElicitRequest is a server's request for input.
type ElicitRequest struct {
	Server  string
	Message string
	// Mode is "form" (Schema describes the fields) or "url" (the person opens URL).
	Mode   string
	Schema json.RawMessage
	URL    string
}

// Elicitation answers.
const (
	ElicitAccept  = "accept"
	ElicitDecline = "decline"
	ElicitCancel  = "cancel"
)

// ElicitResult is the answer: accept (with Content for a form), decline or cancel.
type ElicitResult struct {
	Action  string
	Content map[string]any
}

// ErrNoElicitor is what an Elicitor answers when no one can answer in this session after all
// (a front end that is not connected yet): the request is declined as headless.
var ErrNoElicitor = errors.New("no one can answer requests for input in this session")

// ElicitorFunc adapts a function to Elicitor.
type ElicitorFunc func(ctx context.Context, req ElicitRequest) (ElicitResult, error)

// Elicit calls f.
func (f ElicitorFunc) Elicit(ctx context.Context, req ElicitRequest) (ElicitResult, error) {
	return f(ctx, req)
}

// callNotes collects what the model must learn about a call beyond the server's result (an
// elicitation Reins declined on its behalf).
type callNotes struct {
	mu    sync.Mutex
	notes []string
}

func (n *callNotes) add(s string) {
	n.mu.Lock()
	n.notes = append(n.notes, s)
	n.mu.Unlock()
}

func (n *callNotes) list() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.notes...)
}

func (s *server) track() *callNotes {
	n := &callNotes{}
	s.mu.Lock()
	if s.inflight == nil {
		s.inflight = map[*callNotes]bool{}
	}
	s.inflight[n] = true
	s.mu.Unlock()
	return n
}

func (s *server) untrack(n *callNotes) {
	s.mu.Lock()
	delete(s.inflight, n)
	s.mu.Unlock()
}

// note tells every call in flight on the server; an elicitation request does not say which
// call it belongs to.
func (s *server) note(msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for n := range s.inflight {
		n.add(msg)
	}
}

// elicit is the SDK's elicitation handler.
func (s *server) elicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	p := req.Params
	er := ElicitRequest{Server: s.name, Message: p.Message, Mode: p.Mode, URL: p.URL}
	if er.Mode == "" {
		er.Mode = "form"
	}
	if p.RequestedSchema != nil {
		if b, err := json.Marshal(p.RequestedSchema); err == nil {
			er.Schema = b
		}
	}
	headless := func() (*mcp.ElicitResult, error) {
		s.note(fmt.Sprintf("[Reins declined a request for input from MCP server %q, because no one can answer in this session: %q]", s.name, p.Message))
		return &mcp.ElicitResult{Action: ElicitDecline}, nil
	}
	e := s.m.opts.Elicitor
	if e == nil {
		return headless()
	}
	res, err := e.Elicit(ctx, er)
	if errors.Is(err, ErrNoElicitor) {
		return headless()
	}
	if err != nil {
		s.note(fmt.Sprintf("[MCP server %q asked for input and the request failed: %v]", s.name, err))
		return &mcp.ElicitResult{Action: ElicitCancel}, nil
	}
	switch res.Action {
	case ElicitAccept, ElicitDecline, ElicitCancel:
	default:
		res.Action = ElicitDecline
	}
	if res.Action != ElicitAccept {
		s.note(fmt.Sprintf("[The person answered %s to MCP server %q's request for input: %q]", res.Action, s.name, p.Message))
	}
	return &mcp.ElicitResult{Action: res.Action, Content: res.Content}, nil
}
