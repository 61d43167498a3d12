package sdkproto

import (
	"fmt"
	"strings"
	"testing"
)

func TestSetMaxThinkingTokens(t *testing.T) {
	for _, tt := range []struct {
		name, request string
		spawn         int
		wantErr       string
		want          int // the budget of the next turn's requests
	}{
		{name: "a budget from the next turn", request: `{"subtype":"set_max_thinking_tokens","max_thinking_tokens":2048}`, want: 2048},
		{name: "0 turns thinking off", spawn: 4096, request: `{"subtype":"set_max_thinking_tokens","max_thinking_tokens":0}`, want: 0},
		{name: "null is the session's own", spawn: 4096, request: `{"subtype":"set_max_thinking_tokens","max_thinking_tokens":null}`, want: 4096},
		{name: "no field leaves it", spawn: 4096, request: `{"subtype":"set_max_thinking_tokens"}`, want: 4096},
		{name: "a budget the API refuses", request: `{"subtype":"set_max_thinking_tokens","max_thinking_tokens":100}`, wantErr: "set_max_thinking_tokens: ", want: 0},
		{name: "10^12 is more than the model takes", request: `{"subtype":"set_max_thinking_tokens","max_thinking_tokens":1000000000000}`, wantErr: "thinking budget 1000000000000 is more than", want: 0},
		{name: "not a number", request: `{"subtype":"set_max_thinking_tokens","max_thinking_tokens":"lots"}`, wantErr: "not a whole number", want: 0},
		{name: "a display mode", request: `{"subtype":"set_max_thinking_tokens","max_thinking_tokens":2048,"thinking_display":"highlights"}`, wantErr: "thinking_display is not supported", want: 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := serveInput(t, t.TempDir(), controlLine("1", tt.request)+promptLine, 1, func(srv *Server) { srv.Session.Agent.ThinkingBudget = tt.spawn })
			resp := s.response("1")
			if tt.wantErr != "" {
				if resp["subtype"] != "error" || !strings.Contains(fmt.Sprint(resp["error"]), tt.wantErr) {
					t.Errorf("response %v, want an error with %q", resp, tt.wantErr)
				}
			} else if resp["subtype"] != "success" {
				t.Errorf("response %v", resp)
			}
			if s.err != nil || len(s.requests) == 0 {
				t.Fatalf("Serve %v with %d requests: a thinking request configures no safety", s.err, len(s.requests))
			}
			for _, r := range s.requests {
				if r.ThinkingBudget != tt.want {
					t.Errorf("thinking budget %d, want %d", r.ThinkingBudget, tt.want)
				}
			}
		})
	}
}

// TestKnownRefusals: every control request of the pinned SDK that reins does not build is an
// error naming it and why; the ones that configure safety stop every turn.
func TestKnownRefusals(t *testing.T) {
	for subtype, why := range refusals {
		t.Run(subtype, func(t *testing.T) {
			s := serveInput(t, t.TempDir(), controlLine("1", `{"subtype":"`+subtype+`"}`)+promptLine, 1, nil)
			resp := s.response("1")
			if resp["subtype"] != "error" || !strings.Contains(fmt.Sprint(resp["error"]), `"`+subtype+`": `+why) {
				t.Errorf("response %v", resp)
			}
			if ran := len(s.poked) > 0; ran == ConfiguresSafety(subtype) {
				t.Errorf("configures safety %v, but the tool ran %v", ConfiguresSafety(subtype), s.poked)
			}
		})
	}
	for _, subtype := range []string{"rewind_files", "mcp_reconnect", "get_binary_version", "list_models", "set_max_thinking_tokens"} {
		if ConfiguresSafety(subtype) {
			t.Errorf("%s counts as configuring safety", subtype)
		}
	}
	for _, subtype := range []string{"mcp_toggle", "mcp_set_servers", "apply_flag_settings", "update_settings", "initialize", "set_permission_mode", "mcp_message", "no_such_request"} {
		if !ConfiguresSafety(subtype) {
			t.Errorf("%s does not count as configuring safety", subtype)
		}
	}
}
