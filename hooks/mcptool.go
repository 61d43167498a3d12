package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// ToolCaller calls a tool of one of the session's MCP servers for an mcp_tool hook. text is
// the result's text content; isError is the result's isError flag.
type ToolCaller interface {
	CallHookTool(ctx context.Context, server, tool string, args map[string]any) (text string, isError bool, err error)
}

// MCPTool is an mcp_tool hook: a tool of a configured MCP server called with Input, whose
// string values may name fields of the event's input as ${path} ("${tool_input.file_path}");
// the tool's text is read as a command hook's standard output. A server that is not
// connected, a result marked isError, a ${path} the event does not have and an answer that
// is not hook JSON are failures, which block on the events that decide (see [FailClosed]).
type MCPTool struct {
	Server, Tool string
	// Input is the arguments object as the settings wrote it; nil is {}.
	Input json.RawMessage
	// Caller reaches the session's MCP servers; nil fails every call.
	Caller ToolCaller
}

// FailsClosed implements FailClosed.
func (h *MCPTool) FailsClosed() bool { return true }

// Type implements Typed.
func (h *MCPTool) Type() string { return "mcp_tool" }

// Describe names the hook in messages.
func (h *MCPTool) Describe() string { return "mcp_tool " + h.Server + "/" + h.Tool }

// Handle implements Handler.
func (h *MCPTool) Handle(ctx context.Context, input []byte) (Raw, error) {
	if h.Caller == nil {
		return Raw{}, fmt.Errorf("mcp_tool hook: no MCP server %q in this session", h.Server)
	}
	var event any
	if err := json.Unmarshal(input, &event); err != nil {
		return Raw{}, fmt.Errorf("mcp_tool hook: reading the event: %w", err)
	}
	args := map[string]any{}
	if len(h.Input) > 0 {
		if err := json.Unmarshal(h.Input, &args); err != nil {
			return Raw{}, fmt.Errorf("mcp_tool hook: input must be an object: %w", err)
		}
	}
	filled, err := substitute(args, event)
	if err != nil {
		return Raw{}, fmt.Errorf("mcp_tool hook %s/%s: %w", h.Server, h.Tool, err)
	}
	text, isError, err := h.Caller.CallHookTool(ctx, h.Server, h.Tool, filled.(map[string]any))
	switch {
	case err != nil:
		return Raw{}, fmt.Errorf("mcp_tool hook %s/%s: %w", h.Server, h.Tool, err)
	case isError:
		return Raw{}, fmt.Errorf("mcp_tool hook %s/%s answered an error: %s", h.Server, h.Tool, forModel(strings.TrimSpace(text)))
	}
	return Raw{Stdout: text}, nil
}

// substitute fills the ${path} references of v's strings from the event. A string that is one
// reference becomes the value itself (a number stays a number); a reference inside text is
// written as text (JSON for anything but a string).
func substitute(v, event any) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			s, err := substitute(e, event)
			if err != nil {
				return nil, err
			}
			out[k] = s
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			s, err := substitute(e, event)
			if err != nil {
				return nil, err
			}
			out[i] = s
		}
		return out, nil
	case string:
		return substituteString(x, event)
	}
	return v, nil
}

func substituteString(s string, event any) (any, error) {
	if strings.HasPrefix(s, "${") && strings.HasSuffix(s, "}") && strings.Count(s, "${") == 1 {
		return lookup(event, s[2:len(s)-1])
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		b.WriteString(s[:i])
		val, err := lookup(event, s[i+2:i+end])
		if err != nil {
			return nil, err
		}
		if str, ok := val.(string); ok {
			b.WriteString(str)
		} else {
			j, err := json.Marshal(val)
			if err != nil {
				return nil, err
			}
			b.Write(j)
		}
		s = s[i+end+1:]
	}
}

// errNoField is a ${path} the event does not have: a check on a value that is not there
// cannot pass.
var errNoField = errors.New("the hook input has no field")

// lookup finds a dotted path (tool_input.file_path) in the event.
func lookup(event any, path string) (any, error) {
	cur := event
	for _, k := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%w %s", errNoField, path)
		}
		if cur, ok = m[k]; !ok {
			return nil, fmt.Errorf("%w %s", errNoField, path)
		}
	}
	return cur, nil
}
