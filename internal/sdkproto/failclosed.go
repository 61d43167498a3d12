package sdkproto

import (
	"fmt"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
)

// RefusedError is why no turn runs in a session: the caller configured something reins refused
// (or said it would initialize and sent a prompt first), so going on would run the caller's
// prompts under less than it asked for: without its hooks, in another permission mode, with
// servers it wanted off. [Server.Serve] answers every later user message with an error result
// carrying it, and returns it at the end of input.
type RefusedError struct {
	// Request is the refused request's subtype ("initialize", "set_permission_mode", …), or
	// "user" for a prompt that came before an announced initialize.
	Request string
	// Reason is the refusal's message, as the caller's error response had it.
	Reason string
}

func (e *RefusedError) Error() string {
	if e.Request == "user" {
		return "no turn runs in this session: " + e.Reason
	}
	return fmt.Sprintf("no turn runs in this session: the %s request was refused: %s", e.Request, e.Reason)
}

// harmless are the control requests whose refusal leaves the session as safe as the caller
// asked: they read state, or change what the model is or knows, never what it may do. Every
// other subtype, known or not, configures safety as far as reins can tell, so its refusal
// fails closed.
var harmless = map[string]bool{
	"interrupt":               true,
	"set_model":               true,
	"set_max_thinking_tokens": true,
	"mcp_status":              true,
	"mcp_reconnect":           true,
	"get_context_usage":       true,
	"get_settings":            true,
	"rewind_files":            true,
	"list_models":             true,
	"get_binary_version":      true,
}

// ConfiguresSafety reports whether refusing a control request of this subtype must stop every
// later turn.
func ConfiguresSafety(subtype string) bool { return !harmless[subtype] }

// refuse answers the caller's request with an error, and fails the session closed when the
// request configures safety.
func (s *Server) refuse(id, subtype, reason string) {
	s.conn.respondError(id, reason)
	if ConfiguresSafety(subtype) {
		s.failClosed(&RefusedError{Request: subtype, Reason: reason})
	}
}

// failClosed records the first refusal and aborts the running turn, if any, so that no tool
// starts after it.
func (s *Server) failClosed(r *RefusedError) {
	s.mu.Lock()
	if s.turn.refused == nil {
		s.turn.refused = r
	}
	cancel := s.turns.cancel
	s.mu.Unlock()
	if cancel != nil {
		cancel(r)
	}
}

// refusal is the session's refusal, nil while none.
func (s *Server) refusal() *RefusedError {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.turn.refused
}

// refusedResult is the result of a user message in a session that failed closed.
func refusedResult(r *RefusedError, history []llm.Message) *agent.Result {
	return &agent.Result{Subtype: agent.SubtypeExecutionError, IsError: true, Err: r, Messages: history}
}

// LastResult is the result of the session's last turn, nil before one: the CLI's exit code
// follows it.
func (s *Server) LastResult() *agent.Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.turn.last
}
