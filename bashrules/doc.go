// Package bashrules decides whether a Bash command may run: it is the permission check of the
// Bash tool, the part of the engine that nearly every real bypass attempt goes through.
//
// # How a command is read
//
// The command is parsed with mvdan.cc/sh (bash dialect) into a syntax tree; nothing is guessed
// from the string. A parse error asks. [Analyze] lists every command the line would run,
// wherever it sits: after &&, ||, ;, |, |&, & and newlines; inside subshells, { } groups,
// if/while/for/case, function bodies (analysed where they are defined; a call to a function
// defined earlier in the same script is allowed once its body is), and the bodies of command
// and process substitutions and of here-documents. Commands that other commands run are
// recorded as their children: the script of bash -c, sh -c and eval when it is a literal
// string, the command of a wrapper (timeout, nice, nohup, env, sudo, xargs, watch, ...),
// find's -exec commands, and, speculatively, string literals in an interpreter's inline code
// (python -c, node -e, ...).
//
// A word is known only when it is made of literal, single-quoted and double-quoted literal
// parts; quote removal and backslash escapes are applied ("r\m" and 'rm' are rm). Every other
// expansion — parameters, command and process substitution, arithmetic, ANSI-C $'...' and
// $"..." strings, extended globs — makes the word opaque. Values are never substituted to
// "see" what a word becomes. Brace expansion is applied, as bash applies it before anything
// else ({rm,-rf,/} is rm -rf /), but only while it stays small. Unquoted globs and ~ are
// recorded on the word; ~user is opaque. Arithmetic on variables, indirect expansion and
// array subscripts in [[ -v ]], test -v and printf -v can run commands hidden in a variable's
// value, so they make the command uncertain.
//
// # How a command is decided
//
// Every command is checked on its own, children first: deny rules, then ask rules (matched
// through every assignment and wrapper, and against the command's basename when it is run by
// path), then the paths it touches, then exact allow rules, then prefix and wildcard allow
// rules (only for commands whose every word is known, and never for a string holding more than
// one command), then the read-only set, then acceptEdits mode. A wrapper that only runs its
// child (timeout, time, nice, stdbuf, nohup, command, builtin, noglob, and bash -c or eval
// with a literal script) is allowed when every child is; other wrappers (sudo, env, xargs,
// watch, find -exec) need a rule of their own, while their children's deny, ask and path
// results still apply.
//
// The results combine with the worst winning: any deny denies the whole command; a safety
// check (dangerous removals, protected paths, characters that disguise the command, removals
// of paths only known at run time) asks with ReasonSafetyCheck and an ask rule with its rule,
// whichever parts also ask — Claude Code 2.1.88 lost those reasons when two parts asked; we
// take the strict behaviour of 2.1.98. A path outside the working directories asks. What the
// analysis cannot see asks unless an exact allow rule names the whole command. An allow needs
// every part allowed; otherwise the decision passes through to the engine with at most five
// suggested rules (never for shells, wrappers or interpreters).
//
// Paths in the arguments of known commands and in redirections go through the engine's file
// checks: reads through [permission.Context.CheckRead] (so a Read(./.env) deny also stops cat
// .env, grep -r KEY ., cp .env x, git show HEAD:.env and curl -d @.env), writes through
// [permission.Context.CheckWrite]. Recursive reads are checked file by file against Read deny
// and ask rules. Output redirections are writes (/dev/null, /dev/stdout and /dev/stderr
// exempt); an input redirection is a read. One cd into the working directories is followed;
// several, one outside, or one combined with git or an output redirection ask. Removing the
// root, a top-level directory, the home directory, a working directory or any parent of one
// asks with ReasonSafetyCheck even under a Bash(rm:*) allow rule and in bypassPermissions.
//
// In plan mode nothing that writes is auto-allowed: the write check grants nothing there, so
// acceptEdits-style allows and redirect writes ask; allow rules still apply as written.
//
// More than [MaxSubcommands] commands, or a command over [MaxCommandLength] characters, asks.
// The answer is never allow where the analysis is unsure.
package bashrules
