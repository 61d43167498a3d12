// Package commands reads custom slash commands and expands them into prompts.
//
// A command is a Markdown file under a root folder (.claude/commands, .reins/commands in the
// project and under the home folder, a plugin's commands/); its name is its path below the
// root without ".md", folders joined by ":" (frontend/lint.md is /frontend:lint). An optional
// front matter says what the command is (description, argument-hint), what it may use
// (allowed-tools), which model runs it and whether the model may call it
// (disable-model-invocation). Every problem in a file is reported at its file:line:col and the
// file is skipped; the rest still load. A project's command shadows a user's of the same name,
// with a warning naming both files. A plugin's commands are named "<plugin>:<name>"
// (/kit:review, /kit:frontend:lint), as Claude Code names them, and count as the project's:
// their allowed-tools wait for the project's trust like every other part of a plugin.
//
// The body is a template: $ARGUMENTS, $1…$9, @file includes and !`cmd` lines. Expand never
// touches the file system or starts a process itself: every @file is a Read and every !`cmd`
// a Bash call that the caller's [Host] takes through the one call pipeline, decided by the
// engine with the command's own rules. A refused one stops the command with the reason.
// Arguments are substituted as text only: an "@" or "!`" inside them is never an include or a
// command line.
//
// A command's allowed-tools are the rules of the permission source "command" ([Command.Rules]),
// each traced to the line it was written on. They are allow rules, so the engine ranks them as
// any allow rule: below every deny and ask rule of any source and below the safety checks.
// The front end adds them for the one turn the command drives and drops them when it ends;
// they are never saved. A project's commands load when the project is not trusted (they are
// text), but their rules do not apply until it is; so do a plugin's.
package commands
