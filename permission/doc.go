// Package permission decides, for every tool call a model makes, whether it may run: allow, ask
// or deny.
//
// The package is pure: it imports only the standard library and Reins' own pure packages, reads
// the file system only to resolve symlinks for path checks, and never runs anything.
//
// # Contract
//
// A [Context] is an immutable snapshot of everything a decision depends on: the mode, the rules
// from every source (parsed once, when the context is built), the working directories and the
// session flags. An [Update] never changes a Context; [Context.Apply] returns a new one. One
// part is the session's rather than the snapshot's: the [Taint] record of secret files read,
// which every context derived from the session's shares by pointer (taint.go).
//
// [Engine.Decide] runs the fixed pipeline — tool-wide deny, tool-wide ask, the tool's own check,
// tool deny, user-interaction ask, content ask rule, safety check, taint, bypass, tool-wide allow,
// passthrough to ask — and then the mode post-processing (dontAsk, auto, prompt-less contexts).
// Deny beats ask beats allow whatever the source of the rule: sources only say where a rule came
// from, never how strong it is.
//
// Tools take part through [Checker]: their CheckPermissions answers for their own content (a
// Bash command, a file path, a URL) and may return [Passthrough] to leave the decision to the
// pipeline. The file-path checks every file tool shares are [Context.CheckRead] and
// [Context.CheckWrite].
//
// When the analysis cannot be sure, the answer is ask, never allow.
package permission
