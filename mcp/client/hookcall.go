package client

import (
	"context"
	"fmt"
	"strings"
)

// CallHookTool calls a tool of one of the session's servers by the server's own names (not
// the pool's mcp__ name), for an mcp_tool hook: the server as configured, the tool as it
// lists it. text is the result's text content, joined; a server that is not configured, not
// approved or not connected, and a tool it does not offer, are errors. The call is bounded by
// ctx (the hook's timeout) and MCP_TOOL_TIMEOUT, whichever ends first.
func (m *Manager) CallHookTool(ctx context.Context, server, name string, args map[string]any) (text string, isError bool, err error) {
	s := m.server(server)
	if s == nil {
		return "", false, fmt.Errorf("no MCP server %q is configured in this session", server)
	}
	if _, err := s.current(ctx); err != nil {
		return "", false, err
	}
	if s.definition(name) == nil {
		return "", false, fmt.Errorf("MCP server %q offers no tool %q", server, name)
	}
	res, err := s.call(ctx, name, args)
	if err != nil {
		return "", false, err
	}
	var b strings.Builder
	for _, c := range res.Content {
		if c.Type == "text" {
			b.WriteString(c.Text)
		}
	}
	return b.String(), res.IsError, nil
}
