// Package agenttool is the Agent tool (legacy name Task): it lets the model hand a task to a
// sub-agent, which is the same agent loop (package agent) with its own tools, permission
// view, system prompt and transcript.
//
// # What a sub-agent gets
//
// A sub-agent never gets more than the agent that starts it:
//
//   - Tools: the parent's pool, filtered as Claude Code filters it (tools.FilterForAgent: MCP
//     tools kept; Agent, AskUserQuestion, the plan tools, TaskOutput and TaskStop removed;
//     background agents limited to the async set), then the definition's disallowedTools
//     removed and its tools list selected. The result is a subset of the parent's pool by
//     construction. A definition that lists Agent in its tools may start sub-agents of its
//     own, up to MaxDepth levels; otherwise Agent is never offered below the main agent.
//   - Permissions: the parent's context, seen live (rules and directories granted later reach
//     the sub-agent at once), in the mode ChildMode picks. Its session grants are made in the
//     parent, so the parent sees them. Foreground sub-agents put their asks to the parent's
//     asker (a person, an SDK caller, or nobody: headless asks are denied). Background ones
//     run prompt-less: an ask goes to the BackgroundAsker if one is configured (the
//     PermissionRequest hooks) and is otherwise denied with the asyncAgent reason.
//   - Files: the parent's file state, so a file the parent read may be edited by the
//     sub-agent and vice versa, under the same "read before edit" checks.
//
// # Permission of the Agent call itself
//
// Agent(type) rules match the subagent_type: a deny rule removes the type from the list
// offered to the model and refuses a call to it with Claude Code's message; ask and allow
// rules ask and allow. With no rule the call is allowed: what the sub-agent does is decided
// call by call.
//
// # Lifetimes
//
// A foreground sub-agent runs inside the Agent call and stops when the call's context is
// cancelled (the parent's turn was aborted). A background one runs under the [Manager]'s
// context: Manager.Close stops every one and waits for it, so nothing outlives the session.
// Its completion is announced to the parent through Manager.Notices.
package agenttool
