// Package replay decides recorded tool calls again under other settings, to show what a
// proposed policy would change before it ships.
//
// The calls come from the saved sessions of a project (every tool_use block of every
// assistant message in the session files, compacted parts included) and from the audit log
// (decision entries that carry their input, written with audit.logToolInputs). Each call is
// decided twice, offline, with the engine alone: under the settings in force and under the
// same settings plus the proposed document. Nothing runs and no one is asked: hooks do not
// run (a hook's verdict is not part of a replayed decision), auto mode's classifier is not
// called (the engine decides as when the classifier is unavailable), and an ask stays an ask.
// A call whose tool is not in the catalog (an MCP server's tool, offline) or whose input the
// tool no longer accepts is counted as skipped, not guessed at.
package replay
