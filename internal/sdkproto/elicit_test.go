package sdkproto

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/reinsdev/reins/llm/llmtest"
)

func TestElicit(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"number"}},"required":["zeta"]}`)
	for _, tt := range []struct {
		name    string
		answer  string // the control_response body after request_id
		want    ElicitationResult
		wantErr bool
	}{
		{"accept with content", `"subtype":"success","response":{"action":"accept","content":{"zeta":"z","alpha":2}}`,
			ElicitationResult{Action: "accept", Content: map[string]any{"zeta": "z", "alpha": 2.0}}, false},
		{"decline drops content", `"subtype":"success","response":{"action":"decline","content":{"zeta":"leak"}}`, ElicitationResult{Action: "decline"}, false},
		{"cancel", `"subtype":"success","response":{"action":"cancel"}`, ElicitationResult{Action: "cancel"}, false},
		{"an unknown action is a decline", `"subtype":"success","response":{"action":"sure","content":{"zeta":"z"}}`, ElicitationResult{Action: "decline"}, false},
		{"a malformed answer is a decline", `"subtype":"success","response":"yes"`, ElicitationResult{Action: "decline"}, false},
		{"an error response is an error", `"subtype":"error","error":"no handler"`, ElicitationResult{}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := start(t, llmtest.NewScript(), nil)
			type answer struct {
				res ElicitationResult
				err error
			}
			got := make(chan answer, 1)
			go func() {
				res, err := s.srv.Elicit(context.Background(), ElicitationRequest{MCPServerName: "srv", Message: "Your name?", Mode: "form", RequestedSchema: schema})
				got <- answer{res, err}
			}()
			m := s.next(isRequest("elicitation"))
			req := m["request"].(map[string]any)
			if req["mcp_server_name"] != "srv" || req["message"] != "Your name?" || req["mode"] != "form" ||
				fmt.Sprint(req["property_order"]) != "[zeta alpha]" || req["requested_schema"] == nil {
				t.Errorf("elicitation request %v", req)
			}
			s.send(fmt.Sprintf(`{"type":"control_response","response":{"request_id":%q,%s}}`, m["request_id"], tt.answer))
			a := <-got
			if (a.err != nil) != tt.wantErr || !reflect.DeepEqual(a.res, tt.want) {
				t.Errorf("Elicit = %+v, %v; want %+v (error %v)", a.res, a.err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestElicitWithdrawnWhenTheCallEnds(t *testing.T) {
	s := start(t, llmtest.NewScript(), nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := s.srv.Elicit(ctx, ElicitationRequest{MCPServerName: "srv", Message: "Open this", Mode: "url", URL: "https://example.com/auth"})
		done <- err
	}()
	m := s.next(isRequest("elicitation"))
	cancel()
	c := s.next(func(l map[string]any) bool { return l["type"] == "control_cancel_request" })
	if c["request_id"] != m["request_id"] {
		t.Errorf("withdrew %v, want %v", c["request_id"], m["request_id"])
	}
	if err := <-done; err == nil {
		t.Error("Elicit returned no error after its context ended")
	}
}

func TestElicitAfterInputClosed(t *testing.T) {
	s := start(t, llmtest.NewScript(), nil)
	if err := s.closeAndWait(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.srv.Elicit(context.Background(), ElicitationRequest{MCPServerName: "srv", Message: "x"}); err == nil {
		t.Error("Elicit after the caller closed its input returned no error")
	}
}
