// Package bashrules decides whether a Bash command may run: it is the permission check of the
// Bash tool, the part of the engine that nearly every real bypass attempt goes through.
//
// # How a command is read
//
// The command is parsed with mvdan.cc/sh (bash dialect) into a syntax tree by package cmdline,
// below the verdict stages; nothing is guessed from the string. A parse error asks. [Analyze] lists every command the line would run,
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
// $"..." strings, extended globs — makes the word opaque, with one exception: a command
// substitution that only cats a quoted here-document ("$(cat <<'EOF' ... EOF)", the way commit
// messages are written) is the here-document's text. Values are never substituted to
// "see" what a word becomes. Brace expansion is applied, as bash applies it before anything
// else ({rm,-rf,/} is rm -rf /), but only while it stays small. Unquoted globs and ~ are
// recorded on the word; ~user is opaque. Arithmetic on variables, indirect expansion and
// array subscripts in [[ -v ]], test -v and printf -v can run commands hidden in a variable's
// value, so they make the command uncertain.
//
// # How a command is decided
//
// Every command is checked on its own, children first, in these stages (evaluate.go):
//
//   - rules: deny, then ask rules, matched through every assignment, wrapper and launcher,
//     against the base name of a command run by path, and on a normal form in which options
//     have canonical names (rm -Rf, rm -r -f, rm --rec --for are all rm -rf; git push +main and
//     --force-with-lease are --force), GNU abbreviations are resolved, option order does not
//     matter, global options before a subcommand are skipped and npm's abbreviated commands and
//     git -c aliases are resolved (flagnorm.go, reading each program as its knowledge-base
//     entry says). A deny rule naming options of a program, or subcommand, with no entry makes
//     a command of it with options a safety ask: its options cannot be normalised;
//   - children: the commands it runs, each decided as if it stood alone;
//   - effects: the paths it reads and writes (through the engine's Read and Edit checks), a
//     directory change, exec-family options (find -exec/-delete/-fprint, rg --pre, git -c,
//     sort --compress-program, tar -I, ssh -o ProxyCommand, awk system(), ... — the knowledge
//     base's exec and program options, and effects.go for what depends on a value) and
//     command names the analysis cannot see (expansions and patterns in command position,
//     PATH=/LD_PRELOAD=/GIT_*-style prefixes, alias, hash -p, enable). An effect that asks is
//     never settled by an allow rule: a rule allows the command, not what it does. Exec-family
//     options are a safety ask; an unseen name is a safety ask when any Bash deny or ask rule
//     exists, so bypass mode and a tool-wide allow cannot turn it into allow (step 1g); so is
//     code the analysis cannot see — every interpreter form its entry does not prove runs no
//     code (inline code, standard input, a device as the program, runner modules, preload
//     options; a program file or module, unless an allow rule names it), runners' and
//     database clients' command lines that are not literal, editors fed a script, make -f -,
//     xargs handing its input to a wrapper or shell, unknown programs whose arguments read
//     as a command a rule names (opaque.go), and builtins that change what later words mean
//     (set -k, declare -i, ${x@P}: shellmeaning.go);
//   - allow rules: exact, then prefix and wildcard (only for commands whose every word is known,
//     never for a string holding more than one command, and not when a later word starts a
//     command that a deny or ask rule names: Bash(devbox run *) does not allow devbox run rm).
//     A prefix or wildcard rule covers only options the knowledge base knows and does not mark
//     as running code or naming a program, unless the rule names them (coverage.go): for a
//     complete entry, an unknown option asks, naming it;
//   - structure: a wrapper that only runs its children (the entries that say "role wrapper
//     safe": timeout, time, nice, stdbuf, nohup, command, builtin, noglob; xargs without -I,
//     and bash -c or eval with a literal script) is allowed when every child is; function
//     calls, arithmetic, tests and plain assignments;
//   - the read-only set, the names of the knowledge-base entries flagged readonly: GNU
//     abbreviations, --opt=value, clustered and attached short options and "--" are parsed as
//     the program parses them, an option not in the table or typed as writing, running or
//     reading a file list makes the command not read-only, and a program whose arguments need
//     reading in its own way (git's subcommands, find's actions, test's subscripts) has its
//     read-only code registered beside its entry (registerReadOnly in kb_NAME.go); xargs runs
//     one on the names an entry flagged printsnames lists (git ls-files, grep -l);
//   - acceptEdits mode.
//
// # Program knowledge
//
// What a program's options are and do is data, in the knowledge package (knowledge/programs/
// *.kb): every spelling of each option, its value, and whether it runs code, names a program,
// writes or reads a file; subcommands; environment variables. One fact lives in one place:
// the read-only set and its option lists, the normal form of deny rules, the exec family and the
// arities the path stage reads operands with (for complete entries) all come from it. So do
// the roles: which programs are interpreters (and their code options), shells, runners of
// their arguments, database clients, launchers and wrappers (and where the command a wrapper
// runs starts), which subcommands stay local, which programs change the directory (cd, pushd,
// popd), and whose operands are data (facts.go indexes them once). Package cmdline reads the
// line into its commands (parse, walk, words, wrappers peeled); this package asks the
// knowledge base (facts.go, coverage.go, execopts.go, flagnorm.go), and checks. What stays in
// code is how to read a program's words where no table says it, registered once from the
// file beside the program's entry (kb_NAME.go here, cmdline/kb_NAME.go for the walk): path
// code, the peels of wrappers whose command no option list places (timeout's duration, env
// -S, su -c), git -c, ssh -o RemoteCommand, database statements.
//
// # The checker's parts
//
// A decision is a checker (check.go): the stage sequence of evaluate.go, which asks parts
// that each hold only the state they need, and the knowledge base:
//
//   - the rule indexes (bashIndexes, rulematch.go): the session's Bash rules, built once per
//     rule set; the look-ups that need nothing else (mayName, lineRule, unknownRunner) are
//     theirs;
//   - ruleMatch (flagnorm.go): deny and ask rules matched on meaning — a command's normal
//     form, the commands a later word may run, the programs a pattern in command position
//     names;
//   - pathChecks (pathcheck.go, cd.go, fswalk.go): the paths of a command or redirection
//     through the engine's Read and Edit checks, in each working directory the command may run
//     in, with the cd found and the checks already made;
//   - memo: what the decision found per command (children, verdict, normal form);
//   - verdicts (verdict.go): the answers of rules, of what the analysis cannot see and of
//     safety checks, with their reasons cut from one chunk;
//   - recorder: the trace's steps and, for Explain, each command's effects;
//   - the damage count (damage.go): functions over the analysis and the path checks.
//
// The parts are fields of the checker, pooled with it and cleared with it, so nothing passes
// from one decision to the next; the pointers between them are set again for each decision.
//
// Other wrappers (sudo, env, watch, find -exec) and launchers (npx, uv run, devbox run, ...)
// need a rule of their own, while their children's deny, ask, path and safety results still
// apply. [Explain] reports every command's effects and the check that judged each.
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
