package sdkproto

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/reinsdev/reins/llm/llmtest"
)

// TestSDKServersConnectBeforeTheNextTurn: the in-process servers initialize names start once
// initialize is answered, their messages travel as mcp_message requests over the same pipes,
// and a user message sent right after initialize runs only when they are connected.
func TestSDKServersConnectBeforeTheNextTurn(t *testing.T) {
	prov := llmtest.NewScript(say("hello"))
	var mu sync.Mutex
	var got []string
	s := start(t, prov, func(srv *Server) {
		srv.Handlers.OnInitialize = func(InitializeRequest) error { return nil }
		srv.Handlers.ConnectSDKMCP = func(ctx context.Context, names []string) error {
			reply, err := srv.SendMCP(names[0], json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
			if err != nil {
				return err
			}
			raw, err := reply(ctx)
			mu.Lock()
			got = append(got, string(raw))
			mu.Unlock()
			srv.UpdateInit(func(info *InitInfo) { info.Tools = append(info.Tools, "mcp__local__x") })
			return err
		}
	})
	s.send(`{"type":"control_request","request_id":"i","request":{"subtype":"initialize","sdkMcpServers":["local"]}}`)
	s.user("hi")
	if r := s.response("i"); r["subtype"] != "success" {
		t.Fatalf("initialize: %v", r)
	}
	req := s.next(typed("control_request"))
	body := req["request"].(map[string]any)
	if body["subtype"] != "mcp_message" || body["server_name"] != "local" || body["message"].(map[string]any)["method"] != "tools/list" {
		t.Fatalf("request %v", req)
	}
	if n := len(prov.Requests()); n != 0 {
		t.Fatalf("the turn ran before the servers were connected (%d model requests)", n)
	}
	s.send(fmt.Sprintf(`{"type":"control_response","response":{"subtype":"success","request_id":%q,"response":{"mcp_response":{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}}}}`, req["request_id"]))
	init := s.next(func(m map[string]any) bool { return m["type"] == "system" && m["subtype"] == "init" })
	if !strings.Contains(fmt.Sprint(init["tools"]), "mcp__local__x") {
		t.Errorf("system/init does not list the server's tool: %v", init["tools"])
	}
	if r := s.result(); r["subtype"] != "success" {
		t.Errorf("result %v", r)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0] != `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}` {
		t.Errorf("the reply handed back is %q, want the mcp_response", got)
	}
}

// TestSDKServersThatCannotConnectStopTheTurns: a session whose caller's servers are missing
// runs nothing: every turn is an error naming why.
func TestSDKServersThatCannotConnectStopTheTurns(t *testing.T) {
	prov := llmtest.NewScript(say("hello"))
	s := start(t, prov, func(srv *Server) {
		srv.Handlers.OnInitialize = func(InitializeRequest) error { return nil }
		srv.Handlers.ConnectSDKMCP = func(context.Context, []string) error { return errors.New("the pool cannot be made") }
	})
	s.send(`{"type":"control_request","request_id":"i","request":{"subtype":"initialize","sdkMcpServers":["local"]}}`)
	s.user("hi")
	r := s.result()
	if r["is_error"] != true || !strings.Contains(fmt.Sprint(r["errors"]), "the pool cannot be made") {
		t.Errorf("result %v", r)
	}
	if n := len(prov.Requests()); n != 0 {
		t.Errorf("the turn ran (%d model requests)", n)
	}
}

// TestMCPMessageFromTheCaller: the caller's mcp_message reaches MCPMessage and is acknowledged
// with an empty success; what cannot be delivered is an error naming why.
func TestMCPMessageFromTheCaller(t *testing.T) {
	var mu sync.Mutex
	var got []string
	s := start(t, llmtest.NewScript(), func(srv *Server) {
		srv.Handlers.MCPMessage = func(server string, message json.RawMessage) error {
			if server != "local" {
				return fmt.Errorf("no in-process MCP server %q", server)
			}
			mu.Lock()
			got = append(got, string(message))
			mu.Unlock()
			return nil
		}
	})
	note := `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`
	for _, c := range []struct{ id, request, want string }{
		{"1", `{"subtype":"mcp_message","server_name":"local","message":` + note + `}`, ""},
		{"2", `{"subtype":"mcp_message","server_name":"other","message":` + note + `}`, `no in-process MCP server "other"`},
		{"3", `{"subtype":"mcp_message","server_name":"local"}`, "needs server_name and message"},
	} {
		s.send(`{"type":"control_request","request_id":"` + c.id + `","request":` + c.request + `}`)
		r := s.response(c.id)
		if c.want == "" {
			if r["subtype"] != "success" {
				t.Errorf("%s: %v", c.request, r)
			}
			continue
		}
		if r["subtype"] != "error" || !strings.Contains(fmt.Sprint(r["error"]), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.request, r, c.want)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0] != note {
		t.Errorf("delivered %q", got)
	}
}
