package sdkproto

import (
	"encoding/json"
	"fmt"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
)

// refusals are the control requests of the pinned Agent SDK that reins knows and does not
// build, with why; each is an error response naming it (docs/deviations.md lists them). Those
// that configure safety fail the session closed (failclosed.go).
var refusals = map[string]string{
	"mcp_reconnect":         "reins does not restart an MCP server on request (a crashed stdio server is restarted once by itself)",
	"mcp_toggle":            "reins cannot switch an MCP server on or off in a running session",
	"mcp_set_servers":       "reins cannot change the MCP servers of a running session (deliver them in initialize with --await-initialize, or --mcp-config)",
	"mcp_call":              "reins does not call MCP tools for the caller outside a turn",
	"mcp_read_resource":     "reins does not read MCP resources for the caller",
	"apply_flag_settings":   "reins does not change settings in a running session",
	"update_settings":       "reins does not change settings in a running session",
	"seed_read_state":       "reins does not take file read state from the caller",
	"background_tasks":      "reins has no background tasks",
	"stop_task":             "reins has no background tasks",
	"get_task_output":       "reins has no background tasks",
	"cancel_async_message":  "reins does not withdraw queued prompts",
	"reload_plugins":        "reins has no plugins",
	"reload_skills":         "reins has no skills to reload",
	"reload_output_styles":  "reins has no output styles",
	"register_repo_root":    "reins does not take repository roots from the caller",
	"file_suggestions":      "reins offers no file suggestions over the protocol",
	"get_hooks_listing":     "reins does not list hooks over the protocol",
	"list_permission_rules": "reins lists permission rules in get_settings",
	"get_session_cost":      "reins reports the cost in each result",
	"get_usage":             "reins reports usage in each result",
	"rename_session":        "reins sessions have no titles",
	"set_color":             "reins has no session colours",
	"set_has_subscribers":   "reins has no subscribers",
	// The pinned SDK does not define their answers; initialize's carry both.
	"get_binary_version": "initialize's answer carries claude_code_version",
	"list_models":        "initialize's answer carries models",
}

// controlMore answers the control requests beyond server.go's; false leaves the request to
// server.go.
func (s *Server) controlMore(id, subtype string, raw json.RawMessage) bool {
	switch subtype {
	case "set_max_thinking_tokens":
		s.setThinking(id, raw)
	case "rewind_files":
		s.rewindFiles(id, raw)
	default:
		why, ok := refusals[subtype]
		if !ok {
			return false
		}
		s.refuse(id, subtype, fmt.Sprintf("unsupported control request subtype %q: %s", subtype, why))
	}
	return true
}

// thinkingState is the thinking budget set_max_thinking_tokens asked for, applied from the next
// turn.
type thinkingState struct {
	set    bool
	budget int
}

// setThinking answers set_max_thinking_tokens: a number is the budget from the next turn (0:
// off), null the session's own, no field leaves it. A budget the API would refuse is refused
// here, naming the request.
func (s *Server) setThinking(id string, raw json.RawMessage) {
	var req struct {
		Budget  *json.RawMessage `json:"max_thinking_tokens"`
		Display json.RawMessage  `json:"thinking_display"`
	}
	if err := json.Unmarshal(raw, &req); err != nil {
		s.refuse(id, "set_max_thinking_tokens", fmt.Sprintf("invalid set_max_thinking_tokens request: %v", err))
		return
	}
	if len(req.Display) > 0 && string(req.Display) != "null" {
		s.refuse(id, "set_max_thinking_tokens", "set_max_thinking_tokens: thinking_display is not supported by reins (thinking is shown as the model sends it)")
		return
	}
	if req.Budget == nil {
		s.conn.respond(id, nil)
		return
	}
	budget := s.turn.spawnThinking
	if string(*req.Budget) != "null" {
		if err := json.Unmarshal(*req.Budget, &budget); err != nil {
			s.refuse(id, "set_max_thinking_tokens", "set_max_thinking_tokens: max_thinking_tokens is not a whole number of tokens")
			return
		}
	}
	if budget != 0 {
		r := llm.Request{Model: s.Session.Agent.Model, ThinkingBudget: budget, MaxTokens: (&agent.Agent{Model: s.Session.Agent.Model, MaxTokens: s.Session.Agent.MaxTokens, ThinkingBudget: budget}).ReplyBound()}
		if err := r.CheckThinkingLimit(); err != nil {
			s.refuse(id, "set_max_thinking_tokens", fmt.Sprintf("set_max_thinking_tokens: %v", err))
			return
		}
	}
	s.mu.Lock()
	s.turn.thinking = thinkingState{set: true, budget: budget}
	s.mu.Unlock()
	s.conn.respond(id, nil)
}
