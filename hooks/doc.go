// Package hooks runs the hook commands of Claude Code's settings in its JSON protocol: the
// event's input as JSON on standard input, $CLAUDE_PROJECT_DIR and $REINS_PROJECT_DIR in the
// environment, and an answer made of the exit code, standard error and (when it is JSON)
// standard output.
//
// Contract:
//   - Exit 0 succeeds; standard output is parsed when it is a JSON object, and otherwise is
//     plain text (added context for SessionStart and UserPromptSubmit, ignored elsewhere).
//   - Exit 2 blocks: standard error is the reason, given to the model or the person as the event
//     defines.
//   - Any other exit, a hook that cannot start, and a hook that outlives its timeout (default
//     60 s; its whole process group is killed) are non-blocking errors: they are reported and
//     the agent goes on. A hook can never hang the agent.
//   - The hooks matching one event run in parallel; hooks with the same command run once. Their
//     answers aggregate deny > ask > allow.
//   - What a hook leaves running in its process group (`server &`) goes on while the session
//     does and ends at [Runner.Close]; with [Runner.Groups] set, a watchdog also ends it when
//     this process dies without closing (SIGKILL).
//
// A PreToolUse answer is not a decision: it becomes a [permission.HookVerdict], which
// [permission.Engine.AuthorizeWithHook] ranks below deny rules, ask rules and safety checks.
// PermissionRequest hooks are a [permission.Asker] wrapper ([Asker]), so they compose with
// whatever front end answers asks.
//
// A hook's work is abstracted by [Handler]: command hooks run in a shell; [HTTP] POSTs the
// event to a URL, [MCPTool] calls a tool of the session's MCP servers, [Model] asks a model
// (prompt) or a sub-agent (agent) through a [Judge]; the Agent SDK's hook_callback control
// requests (package sdkproto) plug in there with the same semantics. Every handler but the
// command one is [FailClosed]: on the events where exit 2 blocks (PreToolUse,
// PermissionRequest, UserPromptSubmit, PostToolUse, PostToolUseFailure) its error, its timeout
// and an answer that is not hook JSON block, by one rule in the runner above every handler.
// [Runner.Add] adds hooks after the session started (an SDK caller's initialize).
package hooks
