package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TypeSDK is an in-process server of the Agent SDK caller (createSdkMcpServer): it runs in the
// caller's process and its JSON-RPC messages travel over the caller's own pipes. Only the
// caller registers one (initialize's sdkMcpServers); no configuration file can name this type.
const TypeSDK = "sdk"

// ScopeSDK is where an in-process server comes from: the SDK caller that hosts it.
const ScopeSDK Scope = "sdk"

// SDKHost is the SDK caller that hosts in-process servers and carries their messages.
type SDKHost interface {
	// SendMCP hands one JSON-RPC message to the named server. It returns once the message is
	// written, so messages leave in the order of the calls; reply waits for the caller's
	// answer: the server's JSON-RPC response when message is a request, an acknowledgement to
	// be ignored otherwise. reply's context withdraws the message when it ends.
	SendMCP(server string, message json.RawMessage) (reply func(context.Context) (json.RawMessage, error), err error)
}

// SDKEntries are the entries of the in-process servers names, judged like configured servers
// by the managed allowedMcpServers / deniedMcpServers of opts' settings. A name that is not a
// valid server name, repeats, or is the name of a server of taken (the configured ones) is an
// error: a host's allow rule for mcp__<name>__… must never reach another server's tool.
func SDKEntries(opts LoadOptions, names []string, taken []string) ([]Entry, error) {
	var ap approvals
	for _, sf := range opts.Settings {
		if err := ap.readSettings(sf); err != nil {
			return nil, err
		}
	}
	getenv := opts.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	seen := map[string]bool{}
	for _, n := range taken {
		seen[n] = true
	}
	out := make([]Entry, 0, len(names))
	for _, name := range names {
		switch {
		case !serverNamePattern().MatchString(name):
			return nil, fmt.Errorf("in-process MCP server name %q may contain only letters, digits, - and _", name)
		case seen[name]:
			return nil, fmt.Errorf("in-process MCP server %q: a server of that name is already configured", name)
		}
		seen[name] = true
		c := ServerConfig{Name: name, Type: TypeSDK, Scope: ScopeSDK, Pos: "initialize sdkMcpServers"}
		e := Entry{Config: c, State: StateReady}
		if why, denied := ap.managedDenies(c, getenv); denied {
			e.State, e.Reason = StateDenied, why
		}
		out = append(out, e)
	}
	return out, nil
}

// AddSDK starts the SDK caller's in-process servers, in parallel and each bounded by the start
// timeout like any server, with host carrying their messages. It must not run on the goroutine
// that reads the caller's answers: the handshake waits for them.
func (m *Manager) AddSDK(ctx context.Context, entries []Entry, host SDKHost) {
	m.serversMu.Lock()
	m.sdkHost = host
	var started []*server
	for _, e := range entries {
		s := &server{m: m, entry: e, name: e.Config.Name}
		m.servers = append(m.servers, s)
		if e.State == StateReady {
			started = append(started, s)
		}
	}
	m.serversMu.Unlock()
	var wg sync.WaitGroup
	for _, s := range started {
		wg.Go(func() { s.start(ctx) })
	}
	wg.Wait()
}

// DeliverSDK hands a message the caller sent for one of its in-process servers (the server's
// reply to a request, a notification, a request of its own) to that server's session.
func (m *Manager) DeliverSDK(server string, message json.RawMessage) error {
	for _, s := range m.list() {
		if s.name != server || s.entry.Config.TransportType() != TypeSDK {
			continue
		}
		s.mu.Lock()
		c := s.sdk
		s.mu.Unlock()
		if c == nil {
			return fmt.Errorf("in-process MCP server %q is not connected", server)
		}
		msg, err := jsonrpc.DecodeMessage(message)
		if err != nil {
			return fmt.Errorf("in-process MCP server %q: not a JSON-RPC message: %w", server, err)
		}
		return c.push(msg)
	}
	return fmt.Errorf("no in-process MCP server %q", server)
}

func (m *Manager) host() SDKHost {
	m.serversMu.Lock()
	defer m.serversMu.Unlock()
	return m.sdkHost
}

// sdkTransport is the go-sdk transport of one in-process server.
type sdkTransport struct {
	s    *server
	host SDKHost
}

func (t *sdkTransport) Connect(context.Context) (mcp.Connection, error) {
	if t.host == nil {
		return nil, errors.New("no SDK caller hosts in-process servers")
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &sdkConn{host: t.host, name: t.s.name, in: make(chan jsonrpc.Message, 16), done: make(chan struct{}),
		ctx: ctx, cancel: cancel, waits: map[jsonrpc.ID]context.CancelFunc{}}
	t.s.mu.Lock()
	t.s.sdk = c
	t.s.mu.Unlock()
	return c, nil
}

// sdkConn is the JSON-RPC connection to an in-process server: each message the client writes
// is an mcp_message request to the caller; the server's reply to a request comes back as that
// request's answer, and what the server sends of its own comes through DeliverSDK.
type sdkConn struct {
	host SDKHost
	name string
	in   chan jsonrpc.Message
	done chan struct{}
	once sync.Once
	// ctx ends every wait for an answer when the connection closes.
	ctx    context.Context
	cancel context.CancelFunc

	mu sync.Mutex
	// waits withdraw the requests still waiting for the caller's answer, by id: a request the
	// client gave up on (notifications/cancelled) stops waiting.
	waits map[jsonrpc.ID]context.CancelFunc
}

func (c *sdkConn) SessionID() string { return "" }

func (c *sdkConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-c.in:
		return m, nil
	case <-c.done:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *sdkConn) push(m jsonrpc.Message) error {
	select {
	case c.in <- m:
		return nil
	case <-c.done:
		return mcp.ErrConnectionClosed
	}
}

func (c *sdkConn) Write(_ context.Context, m jsonrpc.Message) error {
	select {
	case <-c.done:
		return mcp.ErrConnectionClosed
	default:
	}
	raw, err := jsonrpc.EncodeMessage(m)
	if err != nil {
		return fmt.Errorf("encoding a message for in-process MCP server %q: %w", c.name, err)
	}
	reply, err := c.host.SendMCP(c.name, raw)
	if err != nil {
		return fmt.Errorf("sending to in-process MCP server %q: %w", c.name, err)
	}
	req, isReq := m.(*jsonrpc.Request)
	if !isReq || !req.IsCall() {
		c.withdrawCancelled(req)
		// The caller acknowledges with a placeholder; waiting keeps its answer matched.
		go func() { _, _ = reply(c.ctx) }()
		return nil
	}
	wctx, stop := context.WithCancel(c.ctx)
	c.mu.Lock()
	c.waits[req.ID] = stop
	c.mu.Unlock()
	go c.await(wctx, stop, req.ID, reply)
	return nil
}

// await waits for the caller's answer to request id and reads the server's reply from it. An
// answer that is not the reply to this request becomes an error reply, so the call ends now
// instead of at its timeout.
func (c *sdkConn) await(ctx context.Context, stop context.CancelFunc, id jsonrpc.ID, reply func(context.Context) (json.RawMessage, error)) {
	defer func() {
		c.mu.Lock()
		delete(c.waits, id)
		c.mu.Unlock()
		stop()
	}()
	raw, err := reply(ctx)
	if ctx.Err() != nil {
		return // closed, or the client gave up on the request
	}
	var resp *jsonrpc.Response
	if err == nil {
		resp, err = decodeReply(raw, id)
	}
	if err != nil {
		resp = &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("in-process MCP server %q: %v", c.name, err)}}
	}
	_ = c.push(resp)
}

func decodeReply(raw json.RawMessage, id jsonrpc.ID) (*jsonrpc.Response, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, errors.New("the SDK caller answered without the server's reply")
	}
	m, err := jsonrpc.DecodeMessage(raw)
	if err != nil {
		return nil, fmt.Errorf("the server's reply is not a JSON-RPC message: %w", err)
	}
	resp, ok := m.(*jsonrpc.Response)
	if !ok || resp.ID != id {
		return nil, errors.New("the SDK caller answered with something other than the reply to this request")
	}
	return resp, nil
}

// withdrawCancelled stops waiting for a request the client cancelled: its control request is
// withdrawn from the caller.
func (c *sdkConn) withdrawCancelled(n *jsonrpc.Request) {
	if n == nil || n.Method != "notifications/cancelled" {
		return
	}
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(n.Params, &p) != nil {
		return
	}
	id, err := jsonrpc.MakeID(p.RequestID)
	if err != nil {
		return
	}
	c.mu.Lock()
	stop := c.waits[id]
	c.mu.Unlock()
	if stop != nil {
		stop()
	}
}

func (c *sdkConn) Close() error {
	c.once.Do(func() {
		close(c.done)
		c.cancel()
	})
	return nil
}
