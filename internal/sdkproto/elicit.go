package sdkproto

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
)

// ElicitationRequest is the elicitation control request: an MCP server asks the SDK caller
// for input (the SDK's onElicitation).
type ElicitationRequest struct {
	Subtype       string `json:"subtype"`
	MCPServerName string `json:"mcp_server_name"`
	Message       string `json:"message"`
	// Mode is "form" (RequestedSchema describes the fields) or "url" (the person opens URL).
	Mode            string          `json:"mode,omitempty"`
	URL             string          `json:"url,omitempty"`
	ElicitationID   string          `json:"elicitation_id,omitempty"`
	RequestedSchema json.RawMessage `json:"requested_schema,omitempty"`
	// PropertyOrder is the schema's top-level property names in the server's order, for a
	// caller whose objects keep no key order.
	PropertyOrder []string `json:"property_order,omitempty"`
}

// ElicitationResult is the caller's answer: accept (with Content for a form), decline or
// cancel.
type ElicitationResult struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// Elicit puts an MCP server's request for input to the SDK caller and waits for the answer
// (the tool call's context ends the wait and withdraws the request). An answer that is not a
// well-formed accept, decline or cancel is a decline: the server never gets content the caller
// did not clearly give.
func (s *Server) Elicit(ctx context.Context, req ElicitationRequest) (ElicitationResult, error) {
	req.Subtype = "elicitation"
	if req.PropertyOrder == nil {
		req.PropertyOrder = propertyOrder(req.RequestedSchema)
	}
	raw, err := s.connection().Request(ctx, req)
	if err != nil {
		return ElicitationResult{}, fmt.Errorf("asking the SDK caller for input: %w", err)
	}
	var res ElicitationResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return ElicitationResult{Action: "decline"}, nil
	}
	switch res.Action {
	case "accept":
	case "decline", "cancel":
		res.Content = nil
	default:
		return ElicitationResult{Action: "decline"}, nil
	}
	return res, nil
}

// propertyOrder lists the top-level keys of schema's properties object in their order.
func propertyOrder(schema json.RawMessage) []string {
	var top map[string]json.RawMessage
	if json.Unmarshal(schema, &top) != nil || len(top["properties"]) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(top["properties"]))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var out []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil
		}
		key, _ := t.(string)
		out = append(out, key)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil
		}
	}
	return out
}
