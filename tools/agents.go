package tools

import (
	"slices"

	"github.com/reinsdev/reins/tool"
)

// AllAgentDisallowed are the tools no sub-agent gets: they need the person (AskUserQuestion,
// the plan-mode tools), belong to the main session's task list (TaskOutput, TaskStop), or
// would let agents nest (Agent, as in Claude Code's external builds). SlashCommand runs a
// command's lines through the main session's pipeline, not the sub-agent's narrower one.
func AllAgentDisallowed() []string {
	return []string{"TaskOutput", "ExitPlanMode", "EnterPlanMode", "Agent", "AskUserQuestion", "TaskStop", "SlashCommand"}
}

// AsyncAgentAllowed are the only built-in tools a background (async) sub-agent gets.
func AsyncAgentAllowed() []string {
	return []string{"Read", "WebSearch", "TodoWrite", "Grep", "WebFetch", "Glob", "Bash", "PowerShell", "Edit", "Write",
		"NotebookEdit", "Skill", "SyntheticOutput", "ToolSearch", "EnterWorktree", "ExitWorktree"}
}

// FilterForAgent returns the tools a sub-agent may use, in the given order: MCP tools always,
// built-ins unless AllAgentDisallowed lists them, and for an async agent only those
// AsyncAgentAllowed lists. The agent definition's own tools and disallowedTools lists apply
// afterwards.
func FilterForAgent(ts []tool.Tool, async bool) []tool.Tool {
	disallowed, asyncOK := AllAgentDisallowed(), AsyncAgentAllowed()
	var out []tool.Tool
	for _, t := range ts {
		switch {
		case t.Spec().MCP:
		case slices.Contains(disallowed, t.Name()):
			continue
		case async && !slices.Contains(asyncOK, t.Name()):
			continue
		}
		out = append(out, t)
	}
	return out
}
