// Package bash holds Reins' Bash tool and the tools that manage its background commands,
// TaskOutput and TaskStop, with the inputs, behaviour and messages of Claude Code's tools of
// the same names.
//
// # Contract
//
// [New] returns a [Shell]: one session's shell state, the working directory carried from call
// to call and the background tasks. Its [Shell.Tools] are the three tools; they keep their
// state in the Shell, never in globals, so two sessions need two Shells. [Shell.Close] ends
// every background task and every process group a command left behind; the program must call
// it before it exits.
//
// Every call runs the command in a new `/bin/bash -c` process with an empty standard input, in
// a process group of its own, with standard output and standard error going to one file. When
// the command times out or its context is cancelled, the whole group gets SIGTERM and, after a
// short grace, SIGKILL, so no process of the command's tree survives. After the command the
// shell's directory is read back (an EXIT trap writes `pwd -P` to a side file, so the output is
// untouched); a `cd` persists while the directory lies inside the working directories, and
// otherwise the directory is reset to the original one with "Shell cwd was reset to <dir>"
// added to the output.
//
// Output longer than 30,000 characters keeps its head and tail with the middle elided and
// counted in lines; the full output stays in a file the result names. A non-zero exit status is
// an error except status 1 of grep, rg, find, diff, test and [ when they are the last command.
//
// Bash's permission check is [bashrules.Check] run against the shell's current directory; a
// command is read-only, and so concurrency-safe, when [bashrules.IsReadOnly] says so.
package bash
