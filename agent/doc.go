// Package agent runs a conversation with a model: it sends the conversation to an
// [llm.Provider], executes the tools the model calls — every call through the permission
// engine — sends the results back, and repeats until the model ends its turn or the run reaches
// its turn limit.
//
// # Executing one assistant turn
//
// The tool_use blocks of an assistant message are executed as Claude Code executes them. Each
// block goes through these steps, and the first that fails produces its tool_result:
//
//  1. the tool is looked up by name or alias; unknown → "<tool_use_error>Error: No such tool
//     available: NAME</tool_use_error>";
//  2. the input is decoded against the tool's schema; failure → the InputValidationError text
//     wrapped in <tool_use_error>;
//  3. the tool's ValidateInput; failure → its message wrapped in <tool_use_error>;
//  4. the permission decision, through [permission.Engine.Authorize] with the run's
//     [permission.Asker] (which finds the tool_use block with [ToolUseOf]); a deny (and,
//     headless, an unanswered ask) → the decision's message, with is_error, and the call is
//     listed in [Result.PermissionDenials];
//  5. the call; a Go error → its text (long texts keep their head and tail), a panic →
//     "<tool_use_error>Error calling tool (NAME): …</tool_use_error>".
//
// Every tool_use gets exactly one tool_result, and the results go back in tool_use order, in one
// user message. Consecutive calls whose input decodes and whose tool says it is
// concurrency-safe for that input form a batch that runs in parallel, at most
// [Agent.MaxConcurrency] at a time (default 10); every other call runs alone, in order. When a
// Bash call in a parallel batch returns an error result, its running and waiting siblings are
// cancelled and answered with "<tool_use_error>Cancelled: parallel tool call Bash(…) errored
// </tool_use_error>".
//
// # Abort
//
// Cancelling the context of [Agent.Run] aborts the run. Running calls see their context
// cancelled; calls that have not started are answered with [CancelMessage], calls that were
// stopped with [InterruptedMessage], so that the conversation stays valid and can be resumed.
// When the context is cancelled with the cause [ErrInterrupt] (a person typed a new message),
// only calls whose tool's interrupt behaviour is [tool.Cancel] are stopped; [tool.Block] calls
// run to completion. Run returns only after every call it started has returned: no goroutine
// of the turn outlives it, and a tool that starts processes must end them when its context is
// cancelled.
//
// # Events
//
// A run publishes [Event]s on its [Bus]: text as it streams, every complete assistant message,
// tool progress with the tool_use id, each call the permission decision refused (before the
// results of its turn), every user message of tool results (with the tools' structured
// outputs), and the final result. The delivery contract:
//
//   - Publishing never blocks the agent. Each subscriber has its own queue and its own
//     goroutine, and receives events in the order they were published.
//   - Progress is coalesced: a subscriber that falls behind receives only the latest
//     undelivered progress report of each tool_use, not the backlog. Text deltas may be merged
//     into fewer, longer deltas of the same block. Neither is ever reordered past a later event.
//   - Every other event — assistant messages, tool results, the final result — is delivered
//     exactly once, never dropped or merged, however slow the subscriber.
//   - The unsubscribe function returned by [Bus.Subscribe] delivers everything already
//     published and then stops the subscriber's goroutine; call it after Run returns to be sure
//     the subscriber has seen the final event.
//
// # Context and compaction
//
// Before each request the agent estimates what it holds ([Agent.ContextUsage]: the last
// reply's usage plus an estimate of what was added since) and, when that reaches the
// threshold of the model's window ([Compaction]), replaces the conversation by a summary the
// model writes: one user message with the summary, the files whose last call was a Read (from
// that Read's result, never from disk), and what [Compaction.Carry] returns. The file state
// then forgets every file whose content is not in that message, so Edit and Write ask for a
// new Read. A "prompt is too long" answer compacts and sends the request again, once.
// [Agent.Compact] is the same on demand. A compaction runs the PreCompact and
// SessionStart(compact) hooks, is recorded ([BoundaryRecorder]) before anything is replaced,
// and is published as [EventCompact].
//
// # Sessions
//
// A [Recorder] receives every message the moment it joins the conversation, and every change
// of the permission state, so a session store can keep the conversation on disk as it happens.
package agent
