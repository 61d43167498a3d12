// Package toolcall runs one tool call the way every front end of Reins runs it: the agent
// loop, `reins mcp serve`, `reins tool run`, sub-agents and programs that embed the library.
//
// A call takes one path, in this order (docs/architecture.md, "How a tool call flows"):
//
//  1. validate: the tool's own input checks (ValidateInput) on the decoded input;
//  2. PreToolUse hooks, when configured: their verdict is an input of the decision, and an
//     updatedInput they substitute is decoded and validated like the model's;
//  3. decide and ask: [permission.Engine.AuthorizeCall] ranks the hooks' verdict against the
//     rules, settles an ask with the pipeline's Asker, and decides any input an answer
//     substitutes as a new call, asking again when it asks;
//  4. record: the pipeline's [Auditor] writes the decision; when it cannot, the call does not
//     run and the run ends (a required audit log fails closed);
//  5. PermissionDenied hooks on a denial;
//  6. run: the tool's Call, under the abort contract (a tool whose interrupt behaviour is
//     [tool.Block] keeps running when a person interrupts with a new message, [ErrInterrupt]),
//     after the context's [Capturer], if any, has recorded what the call may change (file
//     checkpoints);
//  7. PostToolUse or PostToolUseFailure hooks, whose words for the model join the outcome.
//
// Every panic on the way — in a check, a hook's substitute, the call — becomes a failure the
// model reads, never a crash of the program. What the model reads is kept apart from what
// ends the program: [Outcome.Failure] is a message for the model, [Outcome.Err] a failure of
// the run (an asker that broke, too many auto-mode denials).
//
// Decoding is a step of its own ([Decode]) because the agent decodes a whole assistant
// message first to know which calls may run in parallel.
package toolcall
