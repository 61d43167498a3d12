package sdkproto

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// mcpMessageRequest is an mcp_message control request, in both directions: one JSON-RPC
// message for one of the caller's in-process MCP servers.
type mcpMessageRequest struct {
	Subtype    string          `json:"subtype"`
	ServerName string          `json:"server_name"`
	Message    json.RawMessage `json:"message"`
}

// SendMCP carries one JSON-RPC message to the caller's in-process MCP server as an mcp_message
// request. It returns once the line is written; reply waits for the caller's answer and returns
// its mcp_response: the server's reply to a request, a placeholder for anything else. It is the
// MCP client's SDKHost.
func (s *Server) SendMCP(server string, message json.RawMessage) (reply func(context.Context) (json.RawMessage, error), err error) {
	wait, err := s.connection().Begin(mcpMessageRequest{Subtype: "mcp_message", ServerName: server, Message: message})
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) (json.RawMessage, error) {
		raw, err := wait(ctx)
		if err != nil {
			return nil, err
		}
		var resp struct {
			MCPResponse json.RawMessage `json:"mcp_response"`
		}
		if err := json.Unmarshal(raw, &resp); err != nil {
			return nil, fmt.Errorf("the answer to mcp_message is not an object with mcp_response: %w", err)
		}
		return resp.MCPResponse, nil
	}, nil
}

// mcpMessage takes an mcp_message the caller sent: its in-process server's own message, or its
// reply to a message the server got. It is acknowledged with an empty success, as Claude Code
// does; a message reins cannot deliver gets an error naming why.
func (s *Server) mcpMessage(id string, raw json.RawMessage) {
	var req mcpMessageRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		s.conn.respondError(id, fmt.Sprintf("invalid mcp_message request: %v", err))
		return
	}
	if req.ServerName == "" || len(req.Message) == 0 {
		s.conn.respondError(id, "mcp_message needs server_name and message")
		return
	}
	if s.Handlers.MCPMessage == nil {
		s.conn.respondError(id, fmt.Sprintf("no in-process MCP server %q", req.ServerName))
		return
	}
	if err := s.Handlers.MCPMessage(req.ServerName, req.Message); err != nil {
		s.conn.respondError(id, err.Error())
		return
	}
	s.conn.respond(id, map[string]any{})
}

// connectSDKServers starts the in-process servers initialize named, once initialize is
// answered: their handshake travels over these same pipes, so it cannot run while the
// initialize request holds the reader. The next turn waits for it (awaitSetup).
func (s *Server) connectSDKServers(ctx context.Context, names []string) {
	done := make(chan struct{})
	s.mu.Lock()
	s.boot.setup = done
	s.mu.Unlock()
	go func() {
		defer close(done)
		if err := s.Handlers.ConnectSDKMCP(ctx, names); err != nil {
			s.mu.Lock()
			s.boot.setupErr = fmt.Errorf("connecting the in-process MCP servers: %w", err)
			s.mu.Unlock()
		}
	}()
}

// awaitSetup waits for what initialize started; its error stops every turn: the caller's
// servers would be missing from the pool.
func (s *Server) awaitSetup(ctx context.Context) error {
	s.mu.Lock()
	done := s.boot.setup
	s.mu.Unlock()
	if done == nil {
		return nil
	}
	select {
	case <-done:
	case <-ctx.Done():
		return ctx.Err()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.boot.setupErr
}

// setupDone reports whether no in-process MCP server is still connecting; once it is, what the
// setup wrote is visible (the channel's close orders it before).
func (s *Server) setupDone() bool {
	s.mu.Lock()
	done := s.boot.setup
	s.mu.Unlock()
	if done == nil {
		return true
	}
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// UpdateInit changes what system/init and mcp_status report (the in-process servers' tools and
// state, once they are connected).
func (s *Server) UpdateInit(change func(*InitInfo)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	change(&s.Session.Init)
}

func (s *Server) mcpServers() []MCPServer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return orEmpty(s.Session.Init.MCPServers)
}

var errNoSDKServers = errors.New("in-process SDK MCP servers are not supported by this server")
