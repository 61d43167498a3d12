package sdkproto

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/reinsdev/reins/hooks"
	"github.com/reinsdev/reins/llm/llmtest"
)

// startWithHooks starts a server whose initialize registers the caller's hook callbacks.
func startWithHooks(t *testing.T, prov *llmtest.Script) *fakeCaller {
	t.Helper()
	runner := &hooks.Runner{}
	return start(t, prov, func(srv *Server) {
		srv.Session.Agent.Hooks = runner
		srv.Handlers.OnInitialize = func(req InitializeRequest) error {
			hs, err := srv.HookCallbacks(req.Hooks)
			if err != nil {
				return err
			}
			return runner.Add(hs...)
		}
	})
}

func isRequest(subtype string) func(map[string]any) bool {
	return func(m map[string]any) bool {
		r, ok := m["request"].(map[string]any)
		return m["type"] == "control_request" && ok && r["subtype"] == subtype
	}
}

func TestHookCallbacks(t *testing.T) {
	deny := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"not that one"}}`
	allow := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}`
	for _, tt := range []struct {
		name      string
		matcher   string // the matcher entry's fields beside hookCallbackIds
		target    string
		answer    string // the control_response body after request_id; "" never answers
		asks      bool   // the call reaches can_use_tool (answered allow)
		poked     bool
		modelSees string
	}{
		{name: "deny blocks the call", target: "a", answer: `"subtype":"success","response":` + deny, modelSees: "not that one"},
		{name: "allow runs the call unasked", target: "a", answer: `"subtype":"success","response":` + allow, poked: true},
		{name: "allow does not outrank the tool's own deny", target: "secret", answer: `"subtype":"success","response":` + allow, modelSees: "Poking secret is forbidden."},
		{name: "an empty answer decides nothing", target: "a", answer: `"subtype":"success","response":{}`, asks: true, poked: true},
		{name: "exit-2-like block via legacy decision", target: "a", answer: `"subtype":"success","response":{"decision":"block","reason":"legacy no"}`, modelSees: "legacy no"},
		{name: "an error answer goes on", target: "a", answer: `"subtype":"error","error":"callback threw"`, asks: true, poked: true},
		{name: "an error answer blocks with onFailure block", matcher: `"onFailure":"block",`, target: "a", answer: `"subtype":"error","error":"callback threw"`, modelSees: "callback threw"},
		{name: "a malformed answer blocks with onFailure block", matcher: `"onFailure":"block",`, target: "a", answer: `"subtype":"success","response":{"decision":"maybe"}`, modelSees: "decision must be"},
		{name: "an unanswered callback times out and goes on", matcher: `"timeout":0.2,`, target: "a", asks: true, poked: true},
		{name: "a matcher for another tool is not called", matcher: `"matcher":"Bash",`, target: "a", asks: true, poked: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := startWithHooks(t, llmtest.NewScript(poke("toolu_1", tt.target), say("ok")))
			s.send(`{"type":"control_request","request_id":"init","request":{"subtype":"initialize","hooks":{"PreToolUse":[{` + tt.matcher + `"hookCallbackIds":["hook_0"]}]}}}`)
			if resp := s.response("init"); resp["subtype"] != "success" {
				t.Fatalf("initialize: %v", resp)
			}
			s.user("poke")
			wantCallback := !strings.Contains(tt.matcher, "Bash")
			var cbID string
			m := s.next(func(m map[string]any) bool {
				return isRequest("hook_callback")(m) || isRequest("can_use_tool")(m) || m["type"] == "result"
			})
			if wantCallback {
				if !isRequest("hook_callback")(m) {
					t.Fatalf("got %v, want a hook_callback request", m)
				}
				req := m["request"].(map[string]any)
				in, _ := req["input"].(map[string]any)
				if req["callback_id"] != "hook_0" || req["tool_use_id"] != "toolu_1" || in["hook_event_name"] != "PreToolUse" || in["tool_name"] != "Poke" {
					t.Errorf("hook_callback request %v", req)
				}
				cbID = m["request_id"].(string)
				if tt.answer != "" {
					s.send(fmt.Sprintf(`{"type":"control_response","response":{"request_id":%q,%s}}`, cbID, tt.answer))
				}
				m = s.next(func(m map[string]any) bool {
					return isRequest("can_use_tool")(m) || m["type"] == "result" || m["type"] == "control_cancel_request"
				})
				if tt.answer == "" {
					if m["type"] != "control_cancel_request" || m["request_id"] != cbID {
						t.Fatalf("got %v, want the timed-out callback withdrawn", m)
					}
					m = s.next(func(m map[string]any) bool { return isRequest("can_use_tool")(m) || m["type"] == "result" })
				}
			} else if isRequest("hook_callback")(m) {
				t.Fatalf("a callback for another tool was called: %v", m)
			}
			if got := isRequest("can_use_tool")(m); got != tt.asks {
				t.Fatalf("asked %v, want %v (line %v)", got, tt.asks, m)
			}
			if tt.asks {
				s.send(fmt.Sprintf(`{"type":"control_response","response":{"subtype":"success","request_id":%q,"response":{"behavior":"allow","updatedInput":{"target":%q}}}}`, m["request_id"], tt.target))
				s.result()
			}
			if got := slices.Contains(s.poke.targets(), tt.target); got != tt.poked {
				t.Errorf("poked %v, want %v", got, tt.poked)
			}
			if tt.modelSees != "" {
				reqs := s.prov.Requests()
				last := reqs[len(reqs)-1].Messages
				res := last[len(last)-1].Content[0]
				if !res.IsError || !strings.Contains(fmt.Sprint(res.Content), tt.modelSees) {
					t.Errorf("the model got %+v, want an error with %q", res, tt.modelSees)
				}
			}
		})
	}
}

func TestHookCallbacksRefused(t *testing.T) {
	for _, tt := range []struct{ hooks, want string }{
		{`{"PostToolBatch":[{"hookCallbackIds":["h"]}]}`, `event "PostToolBatch" is not supported`},
		{`{"PreToolUse":[{"matcher":"(","hookCallbackIds":["h"]}]}`, "not a valid regular expression"},
		{`{"PreToolUse":[{"hookCallbackIds":[]}]}`, "no hookCallbackIds"},
		{`{"PreToolUse":[{"hookCallbackIds":["h"],"onFailure":"explode"}]}`, "onFailure must be continue or block"},
		{`{"PreToolUse":{"hookCallbackIds":["h"]}}`, "not a list"},
		{`{"SessionEnd":[{"hookCallbackIds":["h"]}]}`, "SessionEnd callbacks are not supported"},
	} {
		s := startWithHooks(t, llmtest.NewScript())
		s.send(`{"type":"control_request","request_id":"i","request":{"subtype":"initialize","hooks":` + tt.hooks + `}}`)
		if resp := s.response("i"); resp["subtype"] != "error" || !strings.Contains(fmt.Sprint(resp["error"]), tt.want) {
			t.Errorf("%s: response %v, want an error with %q", tt.hooks, resp, tt.want)
		}
	}
}

// TestHookCallbackPendingAtEndOfInput: the caller closes its input while a callback is
// pending: the hook fails (non-blocking), the ask that follows is denied since nobody can
// answer, the call never runs, and Serve returns cleanly.
func TestHookCallbackPendingAtEndOfInput(t *testing.T) {
	s := startWithHooks(t, llmtest.NewScript(poke("toolu_1", "a"), say("ok")))
	s.send(`{"type":"control_request","request_id":"init","request":{"subtype":"initialize","hooks":{"PreToolUse":[{"hookCallbackIds":["hook_0"]}]}}}`)
	if resp := s.response("init"); resp["subtype"] != "success" {
		t.Fatalf("initialize: %v", resp)
	}
	s.user("poke")
	s.next(isRequest("hook_callback"))
	if err := s.closeAndWait(); err != nil {
		t.Errorf("Serve: %v", err)
	}
	if got := s.poke.targets(); len(got) != 0 {
		t.Errorf("the call ran: %v", got)
	}
	reqs := s.prov.Requests()
	last := reqs[len(reqs)-1].Messages
	if res := last[len(last)-1].Content[0]; !res.IsError {
		t.Errorf("the model got %+v, want a denial", res)
	}
}
