package sdkproto

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
)

func toolUses(parent string, uses ...llm.Block) agent.Event {
	return agent.Event{Type: agent.EventAssistant, ParentToolUseID: parent,
		Response: &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: uses}, StopReason: llm.StopToolUse}}
}

func denied(parent, tool, id string) agent.Event {
	return agent.Event{Type: agent.EventPermissionDenied, ParentToolUseID: parent,
		Denied: &agent.DeniedCall{ToolName: tool, ToolUseID: id, Message: "denied"}}
}

// TestEmitterResultListsSubAgentDenials: the result's permission_denials hold the main agent's
// denied calls and its sub-agents', nested ones included, each of a sub-agent naming the Agent
// call that ran it and its type.
func TestEmitterResultListsSubAgentDenials(t *testing.T) {
	c := &Collector{}
	e := &Emitter{W: c, SessionID: "s"}
	for _, ev := range []agent.Event{
		toolUses("", llm.ToolUse("tu_explore", "Agent", json.RawMessage(`{"description":"d","prompt":"p","subagent_type":"Explore"}`)),
			llm.ToolUse("tu_gp", "Task", json.RawMessage(`{"description":"d","prompt":"p"}`))),
		toolUses("tu_explore", llm.ToolUse("tu_curl", "Bash", json.RawMessage(`{"command":"curl example.com"}`))),
		denied("tu_explore", "Bash", "tu_curl"),
		{Type: agent.EventToolResults, ParentToolUseID: "tu_explore", Message: &llm.Message{Role: llm.RoleUser,
			Content: []llm.Block{{Type: llm.BlockToolResult, ToolUseID: "tu_curl", IsError: true}}}},
		toolUses("tu_gp", llm.ToolUse("tu_nested", "Agent", json.RawMessage(`{"description":"d","prompt":"p","subagent_type":"reviewer"}`))),
		toolUses("tu_nested", llm.ToolUse("tu_write", "Write", json.RawMessage(`{"file_path":"/etc/x","content":""}`))),
		denied("tu_nested", "Write", "tu_write"),
	} {
		e.Handle(ev)
	}
	e.Result(&agent.Result{Subtype: agent.SubtypeSuccess, PermissionDenials: []agent.Denial{
		{ToolName: "Bash", ToolUseID: "tu_main", ToolInput: json.RawMessage(`{"command":"rm -rf /"}`)}}})
	res := c.Lines[len(c.Lines)-1].(ResultLine)
	b, _ := json.Marshal(res.PermissionDenials)
	want := `[{"tool_name":"Bash","tool_use_id":"tu_main","tool_input":{"command":"rm -rf /"}},` +
		`{"tool_name":"Bash","tool_use_id":"tu_curl","tool_input":{"command":"curl example.com"},"parent_tool_use_id":"tu_explore","agent_type":"Explore"},` +
		`{"tool_name":"Write","tool_use_id":"tu_write","tool_input":{"file_path":"/etc/x","content":""},"parent_tool_use_id":"tu_nested","agent_type":"reviewer"}]`
	if string(b) != want {
		t.Errorf("permission_denials\n got %s\nwant %s", b, want)
	}

	// The next run starts empty, and an empty list is [] on the wire.
	e.Result(&agent.Result{Subtype: agent.SubtypeSuccess})
	if b, _ := json.Marshal(c.Lines[len(c.Lines)-1]); !strings.Contains(string(b), `"permission_denials":[]`) {
		t.Errorf("second result %s", b)
	}
}

// TestSubagentDenialsDefaultTypeAndUnknownInput: an Agent call without a type ran
// general-purpose; a denial whose call was never seen still names its sub-agent, with an empty
// input rather than none.
func TestSubagentDenialsDefaultTypeAndUnknownInput(t *testing.T) {
	var s SubagentDenials
	s.Observe(toolUses("", llm.ToolUse("tu_a", "Agent", json.RawMessage(`{"prompt":"p"}`))))
	s.Observe(denied("tu_a", "Bash", "tu_unseen"))
	s.Observe(denied("", "Bash", "tu_main")) // the main agent's: its Result has it
	got := s.Take()
	if len(got) != 1 || got[0].AgentType != "general-purpose" || string(got[0].ToolInput) != "{}" || got[0].ParentToolUseID != "tu_a" {
		t.Errorf("got %+v", got)
	}
	if len(s.Take()) != 0 {
		t.Error("Take did not reset")
	}
}
