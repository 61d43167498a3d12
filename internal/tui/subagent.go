package tui

import (
	"encoding/json"
	"fmt"
	"regexp"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
)

// subCall is one tool call a sub-agent made, shown nested under the Agent card that runs it.
type subCall struct {
	id, name, keyInput string
	status             toolStatus
	progress           string
}

// subShown is how many of a sub-agent's calls a collapsed card shows: the latest ones.
const subShown = 3

// isAgentTool names the tool that runs sub-agents, by its name and its legacy one.
func isAgentTool(name string) bool { return name == "Agent" || name == "Task" }

// agentKeyInput is an Agent card's label: the sub-agent's type and the task's description.
func agentKeyInput(raw json.RawMessage) string {
	var in struct {
		Description  string `json:"description"`
		SubagentType string `json:"subagent_type"`
	}
	if json.Unmarshal(raw, &in) != nil {
		return ""
	}
	typ := in.SubagentType
	if typ == "" {
		typ = "general-purpose"
	}
	if d := oneLine(in.Description); d != "" {
		return typ + " · " + d
	}
	return typ
}

// subEvent draws an event a sub-agent's run republished on the parent's bus: its tool calls
// join the card of the Agent call that runs it (or, for a sub-agent of a sub-agent, the card
// its parent call is nested under), never the top level. Its text is the Agent call's result,
// shown when the call ends.
func (m *transcript) subEvent(ev agent.Event, now time.Time) {
	top := m.cards[ev.ParentToolUseID]
	if top == nil {
		top = m.subTop[ev.ParentToolUseID]
	}
	if top == nil {
		return
	}
	switch ev.Type {
	case agent.EventAssistant:
		if ev.Response == nil {
			return
		}
		for _, b := range ev.Response.Message.Content {
			if b.Type != llm.BlockToolUse {
				continue
			}
			sc := &subCall{id: b.ID, name: b.Name, keyInput: keyInput(b.Name, b.Input), status: toolPending}
			if isAgentTool(b.Name) {
				sc.keyInput = agentKeyInput(b.Input)
			}
			top.subCalls = append(top.subCalls, sc)
			m.subs[b.ID] = sc
			m.subTop[b.ID] = top
		}
		top.touch()
	case agent.EventProgress:
		if sc := m.subs[ev.ToolUseID]; sc != nil {
			sc.progress = oneLine(ev.Progress.Message)
			top.touch()
		}
	case agent.EventToolResults:
		if ev.Message == nil {
			return
		}
		for _, b := range ev.Message.Content {
			sc := m.subs[b.ToolUseID]
			if sc == nil {
				continue
			}
			var probe entry
			finishCard(&probe, b, now)
			sc.status, sc.progress = probe.status, ""
			delete(m.subs, b.ToolUseID)
		}
		top.touch()
	}
}

// subCallFor finds the pending sub-agent call an ask is about, when no top-level card is.
func (m *transcript) subCallFor(toolName string) (*subCall, *entry) {
	for _, e := range m.entries {
		if e.kind != entryTool || e.status != toolPending {
			continue
		}
		for _, sc := range e.subCalls {
			if sc.status == toolPending && sc.name == toolName && sc.progress != "waiting for your answer" {
				return sc, e
			}
		}
	}
	return nil, nil
}

// subLines renders a card's sub-agent calls: the latest few, or all of them when expanded.
func (r *renderer) subLines(e *entry) []string {
	calls := e.subCalls
	var out []string
	if n := len(calls) - subShown; n > 0 && !r.expanded {
		calls = calls[n:]
		word := "calls"
		if n == 1 {
			word = "call"
		}
		out = append(out, "  ⎿ "+r.st.dim.Render(fmt.Sprintf("… +%d earlier tool %s (ctrl+o to expand)", n, word)))
	}
	for _, sc := range calls {
		prefix := "    "
		if len(out) == 0 {
			prefix = "  ⎿ "
		}
		var mark, tail string
		switch sc.status {
		case toolPending:
			mark = r.st.warn.Render("◌")
			tail = sc.progress
		case toolDone:
			mark = r.st.ok.Render("●")
		case toolCancelled:
			mark, tail = r.st.dim.Render("●"), "cancelled"
		case toolDenied:
			mark, tail = r.st.err.Render("●"), "denied"
		default:
			mark, tail = r.st.err.Render("●"), "error"
		}
		line := mark + " " + r.st.toolName.Render(sc.name)
		if sc.keyInput != "" {
			room := max(r.width-ansi.StringWidth(sc.name)-ansi.StringWidth(tail)-12, 8)
			line += "(" + r.st.keyInput.Render(ansi.Truncate(sc.keyInput, room, "…")) + ")"
		}
		if tail != "" {
			line += " " + r.st.dim.Render(tail)
		}
		out = append(out, prefix+ansi.Truncate(line, max(r.width-4, 8), "…"))
	}
	return out
}

// subSummary counts a finished Agent card's calls for its status.
func subSummary(e *entry) string {
	n := len(e.subCalls)
	if n == 0 {
		return ""
	}
	if n == 1 {
		return "1 tool use"
	}
	return fmt.Sprintf("%d tool uses", n)
}

// answeredSub clears the "waiting" mark of the sub-agent call whose ask was answered.
func (m *transcript) answeredSub(toolName string) {
	for _, e := range m.entries {
		if e.kind != entryTool || e.status != toolPending {
			continue
		}
		for _, sc := range e.subCalls {
			if sc.status == toolPending && sc.name == toolName && sc.progress == "waiting for your answer" {
				sc.progress = ""
				e.touch()
				return
			}
		}
	}
}

// forgetSubCalls stops tracking the sub-agent calls of a finished card: late events for them
// are dropped.
func (m *transcript) forgetSubCalls(e *entry) {
	for _, sc := range e.subCalls {
		delete(m.subs, sc.id)
		delete(m.subTop, sc.id)
	}
}

// agentIDRE finds the agent id in an Agent call's result ("agentId: a1b2…").
var agentIDRE = regexp.MustCompile(`agentId: ([A-Za-z0-9][A-Za-z0-9._-]*)`)

func agentIDOf(result string) string {
	if m := agentIDRE.FindStringSubmatch(result); m != nil {
		return m[1]
	}
	return ""
}

// subCallsFromHistory rebuilds a sub-agent's calls from its saved conversation.
func subCallsFromHistory(msgs []llm.Message) []*subCall {
	var out []*subCall
	byID := map[string]*subCall{}
	for _, m := range msgs {
		for _, b := range m.Content {
			switch b.Type {
			case llm.BlockToolUse:
				sc := &subCall{id: b.ID, name: b.Name, keyInput: keyInput(b.Name, b.Input), status: toolCancelled}
				if isAgentTool(b.Name) {
					sc.keyInput = agentKeyInput(b.Input)
				}
				byID[b.ID] = sc
				out = append(out, sc)
			case llm.BlockToolResult:
				if sc := byID[b.ToolUseID]; sc != nil {
					var probe entry
					finishCard(&probe, b, time.Time{})
					sc.status = probe.status
				}
			}
		}
	}
	return out
}
