package sdkproto

import (
	"cmp"
	"encoding/json"
	"sync"

	"github.com/reinsdev/reins/agent"
)

// Denial is one entry of the result's permission_denials. A sub-agent's call also names the
// sub-agent: the id of the Agent call that ran it and its agent type. The SDK's
// SDKPermissionDenial has the first three fields; the other two are Reins' own (the
// permission_denied line's agent_id plays their part in Claude Code).
type Denial struct {
	agent.Denial
	ParentToolUseID string `json:"parent_tool_use_id,omitempty"`
	AgentType       string `json:"agent_type,omitempty"`
}

// The Agent tool's names and default type, as the model calls it. Spelled here because this
// package reads the conversation, not the tool pool (the Agent tool is tools/agenttool's).
const (
	agentToolName       = "Agent"
	agentToolLegacyName = "Task"
	defaultAgentType    = "general-purpose"
)

// SubagentDenials gathers the denied calls of sub-agents from the events of a parent's bus, on
// which tools/agenttool republishes every sub-agent event with the Agent call's id. The
// agent's Result lists only its own calls' denials; these complete the run's record. A call
// is matched to its input by its tool_use id in the sub-agent's assistant message, which the
// bus delivers before the denial. The zero value is ready; it is safe for concurrent use.
type SubagentDenials struct {
	mu sync.Mutex
	// types is the agent type of each Agent call seen, by its id (nested calls included).
	types map[string]string
	// inputs holds a sub-agent's call's input from its assistant message until its result.
	inputs map[string]json.RawMessage
	list   []Denial
}

// Observe takes one event of the parent's bus.
func (s *SubagentDenials) Observe(ev agent.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch ev.Type {
	case agent.EventAssistant:
		for _, u := range ev.Response.Message.ToolUses() {
			if u.Name == agentToolName || u.Name == agentToolLegacyName {
				var in struct {
					Type string `json:"subagent_type"`
				}
				json.Unmarshal(u.Input, &in)
				s.set(&s.types, u.ID, cmp.Or(in.Type, defaultAgentType))
			}
			if ev.ParentToolUseID != "" {
				if s.inputs == nil {
					s.inputs = map[string]json.RawMessage{}
				}
				s.inputs[u.ID] = u.Input
			}
		}
	case agent.EventPermissionDenied:
		if ev.ParentToolUseID == "" {
			return // the main agent's: its Result lists them
		}
		d := ev.Denied
		in := s.inputs[d.ToolUseID]
		if len(in) == 0 {
			in = json.RawMessage("{}")
		}
		s.list = append(s.list, Denial{
			Denial:          agent.Denial{ToolName: d.ToolName, ToolUseID: d.ToolUseID, ToolInput: in},
			ParentToolUseID: ev.ParentToolUseID,
			AgentType:       s.types[ev.ParentToolUseID],
		})
	case agent.EventToolResults:
		// A call with a result can no longer be denied: its input is not needed.
		for _, b := range ev.Message.Content {
			delete(s.inputs, b.ToolUseID)
		}
	}
}

func (s *SubagentDenials) set(m *map[string]string, k, v string) {
	if *m == nil {
		*m = map[string]string{}
	}
	(*m)[k] = v
}

// Take returns the sub-agents' denials gathered since the last Take.
func (s *SubagentDenials) Take() []Denial {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.list
	s.list = nil
	return out
}

// AllDenials is a run's record: the main agent's denials, then its sub-agents'.
func AllDenials(res *agent.Result, sub []Denial) []Denial {
	out := make([]Denial, 0, len(res.PermissionDenials)+len(sub))
	for _, d := range res.PermissionDenials {
		out = append(out, Denial{Denial: d})
	}
	return append(out, sub...)
}
