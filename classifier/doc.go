// Package classifier is auto mode's judge: a [permission.Classifier] that asks a model
// whether a tool call no rule decided should run.
//
// What the model sees is chosen here, not by the model or the agent. The request holds the
// person's messages and the agent's proposed actions (tool calls) from the conversation the
// call was proposed in ([llm.TranscriptOf]), the action to judge, the working directories and
// the permission rules — and nothing else: no tool result, no file, no web page, no hook
// output, no assistant prose, because those are where injected instructions live and any of
// them can quote the others. Everything travels as one JSON document, so no text inside it
// can pose as a section of the prompt.
//
// The model answers by calling the verdict tool, {"decision": "allow"|"block", "reason":
// "..."}. Text is never read for a decision. Anything else — an API error, a timeout, a
// refusal, no verdict call, two of them, a field too many or of the wrong kind — is a
// [*Failure] naming what was wrong, which the engine treats as no verdict (a person is asked;
// headless, the call is denied).
//
// A verdict is cached under a hash of the whole request (model, action, transcript,
// directories, rules): the same action in the same context is judged once. The usage of each
// request is reported with [llm.ReportUsage] so that it counts in the run's cost.
package classifier
