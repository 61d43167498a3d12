// Package workflow holds the tools that organise a session rather than touch files:
// TodoWrite, AskUserQuestion, EnterPlanMode and ExitPlanMode.
//
// # Session state
//
// The todo list lives in the call's [tool.Env] (Values, under this package's own key), one list
// per Env, so each agent and sub-agent keeps its own. The list is cleared once every item is
// completed. TodoWrite is not concurrency-safe, so the executor never runs it beside another
// call, which keeps the first write to Env.Values race-free.
//
// # Questions
//
// AskUserQuestion always asks (RequiresUserInteraction, and its permission check answers ask
// "Answer questions?"), in every mode, bypass included. Whoever answers the ask — a terminal,
// a UI, a PreToolUse hook — shows the questions and approves with an updated input that
// carries the answers: [WithAnswers] returns the input with its Answers field (JSON
// "answers": question text → chosen label(s), several labels joined with ", ") filled in.
// Without answers the call tells the model the questions went unanswered.
//
// # Plan mode
//
// EnterPlanMode switches the session to plan mode through Env.UpdatePermissions (a session
// setMode update; the permission context remembers the previous mode as prePlanMode). It is
// refused inside sub-agents, which the Agent tool marks with [MarkSubAgent]. ExitPlanMode
// needs the person's approval (ask "Exit plan mode?", in every mode), is refused outside plan
// mode, and returns to the mode plan mode was entered from (permission.Context.ExitPlan).
package workflow
