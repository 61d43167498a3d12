package client

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
)

// fakeHost is the SDK caller of the tests: it runs real go-sdk servers in memory and carries
// their messages the way the Agent SDK does (a request's reply is the answer to the
// mcp_message that carried it; what the server sends of its own goes to DeliverSDK).
type fakeHost struct {
	m *Manager
	// hang lists the methods the host never answers.
	hang []string
	// fail answers every request with this error, as the SDK does for an unknown server.
	fail string

	mu      sync.Mutex
	conns   map[string]mcp.Connection
	pending map[string]chan json.RawMessage // by server and request id
	sent    []string                        // methods, in order
}

func newFakeHost(t *testing.T, servers map[string]*mcp.Server) *fakeHost {
	h := &fakeHost{conns: map[string]mcp.Connection{}, pending: map[string]chan json.RawMessage{}}
	for name, srv := range servers {
		ct, st := mcp.NewInMemoryTransports()
		if _, err := srv.Connect(t.Context(), st, nil); err != nil {
			t.Fatal(err)
		}
		conn, err := ct.Connect(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		h.conns[name] = conn
		go h.pump(name, conn)
	}
	return h
}

// pump reads what a server writes: replies to the host's pending requests, the rest to reins.
func (h *fakeHost) pump(name string, conn mcp.Connection) {
	for {
		msg, err := conn.Read(context.Background())
		if err != nil {
			return
		}
		raw, _ := jsonrpc.EncodeMessage(msg)
		if r, ok := msg.(*jsonrpc.Response); ok {
			h.mu.Lock()
			ch := h.pending[name+":"+idString(r.ID)]
			delete(h.pending, name+":"+idString(r.ID))
			h.mu.Unlock()
			if ch != nil {
				ch <- raw
				continue
			}
		}
		_ = h.m.DeliverSDK(name, raw)
	}
}

func idString(id jsonrpc.ID) string { b, _ := json.Marshal(id.Raw()); return string(b) }

func (h *fakeHost) SendMCP(server string, message json.RawMessage) (func(context.Context) (json.RawMessage, error), error) {
	msg, err := jsonrpc.DecodeMessage(message)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	conn := h.conns[server]
	req, isReq := msg.(*jsonrpc.Request)
	var ch chan json.RawMessage
	if isReq {
		h.sent = append(h.sent, req.Method)
	}
	hang := isReq && slices.Contains(h.hang, req.Method)
	if isReq && req.IsCall() {
		ch = make(chan json.RawMessage, 1)
		if !hang {
			h.pending[server+":"+idString(req.ID)] = ch
		}
	}
	h.mu.Unlock()
	if h.fail != "" && ch != nil {
		return func(context.Context) (json.RawMessage, error) { return nil, errors.New(h.fail) }, nil
	}
	if conn == nil {
		return nil, errors.New("SDK MCP server not found: " + server)
	}
	if !hang {
		if err := conn.Write(context.Background(), msg); err != nil {
			return nil, err
		}
	}
	return func(ctx context.Context) (json.RawMessage, error) {
		if ch == nil {
			return json.RawMessage(`{"jsonrpc":"2.0","result":{},"id":0}`), nil
		}
		select {
		case r := <-ch:
			return r, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}, nil
}

func (h *fakeHost) methods() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.sent)
}

// sdkServer is an in-process server with tool x (read-only) that echoes its text.
func sdkServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "local", Version: "1"}, nil)
	obj := map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}, "required": []any{"text"}}
	srv.AddTool(&mcp.Tool{Name: "x", Description: "Echoes.", InputSchema: obj, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text("x says " + args(req)["text"].(string)), nil
		})
	return srv
}

func startSDK(t *testing.T, opts Options, h *fakeHost, names ...string) *Manager {
	t.Helper()
	m := Start(t.Context(), nil, opts)
	t.Cleanup(func() { m.Close() })
	h.m = m
	entries, err := SDKEntries(LoadOptions{}, names, nil)
	if err != nil {
		t.Fatal(err)
	}
	m.AddSDK(t.Context(), entries, h)
	return m
}

func TestSDKServerToolsJoinThePoolAndCallsGoThroughTheHost(t *testing.T) {
	h := newFakeHost(t, map[string]*mcp.Server{"local": sdkServer()})
	m := startSDK(t, Options{}, h, "local")
	st := m.Status()
	if len(st) != 1 || st[0].State != StateConnected || st[0].Type != TypeSDK || st[0].Scope != ScopeSDK || st[0].Tools != 1 {
		t.Fatalf("status = %+v", st)
	}
	x := find(t, m.Tools(), "mcp__local__x")
	in, err := x.Decode(json.RawMessage(`{"text":"a"}`))
	if err != nil {
		t.Fatal(err)
	}
	if !x.Is(tool.ReadOnly, in) || x.Is(tool.Destructive, in) || !x.Spec().MCP {
		t.Errorf("readOnlyHint was lost")
	}
	if _, ok := x.(permission.Pinned); !ok {
		t.Errorf("an in-process server's tool is not pinned")
	}
	if res := run(t, x, `{"text":"hi"}`); res.IsError || res.TextOf() != "x says hi" {
		t.Errorf("call = %+v", res)
	}
	if got := h.methods(); !slices.Contains(got, "tools/list") || !slices.Contains(got, "tools/call") {
		t.Errorf("the host carried %v", got)
	}
	// The schema is enforced here, before anything reaches the host.
	if _, err := x.Decode(json.RawMessage(`{"text":3}`)); err == nil {
		t.Errorf("a bad input was accepted")
	}
}

func TestSDKServerThatNeverAnswersTimesOut(t *testing.T) {
	t.Run("start", func(t *testing.T) {
		h := newFakeHost(t, map[string]*mcp.Server{"local": sdkServer()})
		h.hang = []string{"server/discover", "initialize"}
		m := startSDK(t, Options{StartTimeout: 200 * time.Millisecond}, h, "local")
		st := m.Status()
		if st[0].State != StateFailed || !strings.Contains(st[0].Reason, "MCP_TIMEOUT") || len(m.Tools()) != 0 {
			t.Errorf("status = %+v", st)
		}
	})
	t.Run("call", func(t *testing.T) {
		h := newFakeHost(t, map[string]*mcp.Server{"local": sdkServer()})
		h.hang = []string{"tools/call"}
		m := startSDK(t, Options{CallTimeout: 200 * time.Millisecond}, h, "local")
		res := run(t, find(t, m.Tools(), "mcp__local__x"), `{"text":"hi"}`)
		if !res.IsError || !strings.Contains(res.TextOf(), "MCP_TOOL_TIMEOUT") {
			t.Errorf("result = %+v", res)
		}
	})
}

func TestSDKHostErrorEndsTheCallAtOnce(t *testing.T) {
	h := newFakeHost(t, map[string]*mcp.Server{"local": sdkServer()})
	m := startSDK(t, Options{}, h, "local")
	h.fail = "SDK MCP server not found: local"
	res := run(t, find(t, m.Tools(), "mcp__local__x"), `{"text":"hi"}`)
	if !res.IsError || !strings.Contains(res.TextOf(), "SDK MCP server not found") {
		t.Errorf("result = %+v", res)
	}
	// Not restarted: the server lives in the caller's process, not ours.
	if st := m.Status(); st[0].Restarts != 0 {
		t.Errorf("status = %+v", st)
	}
}

func TestDeliverSDKNamesWhatIsWrong(t *testing.T) {
	h := newFakeHost(t, map[string]*mcp.Server{"local": sdkServer()})
	m := startSDK(t, Options{}, h, "local")
	for _, c := range []struct{ server, msg, want string }{
		{"other", `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`, `no in-process MCP server "other"`},
		{"local", `{"nope":1}`, "not a JSON-RPC message"},
	} {
		if err := m.DeliverSDK(c.server, json.RawMessage(c.msg)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("DeliverSDK(%s, %s) = %v, want %q", c.server, c.msg, err, c.want)
		}
	}
}

func TestSDKEntries(t *testing.T) {
	dir := t.TempDir()
	managed := filepath.Join(dir, "managed.json")
	if err := os.WriteFile(managed, []byte(`{"deniedMcpServers":[{"serverName":"bad"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	lo := LoadOptions{Settings: []SettingsFile{{Path: managed, Source: permission.SourcePolicy}}}
	for _, c := range []struct {
		names, taken []string
		want         string // error, or the state of the last entry
	}{
		{[]string{"local"}, nil, string(StateReady)},
		{[]string{"bad"}, nil, string(StateDenied)},
		{[]string{"a b"}, nil, "may contain only"},
		{[]string{"local"}, []string{"local"}, "already configured"},
		{[]string{"local", "local"}, nil, "already configured"},
	} {
		es, err := SDKEntries(lo, c.names, c.taken)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = string(es[len(es)-1].State)
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("SDKEntries(%v, taken %v) = %q, want %q", c.names, c.taken, got, c.want)
		}
	}
}
