// Package procgroup ends process groups: the Bash tool's commands and the hooks' commands each
// run in a group of their own, and what they leave running is ended the same way — SIGTERM,
// then SIGKILL for whatever is left after a grace. A group counts as gone when no member is
// alive: zombies waiting for their parent to reap them do not count.
//
// It imports only the standard library, so that every package that starts processes (hooks
// may import nothing else of ours but permission) can share one implementation.
package procgroup
