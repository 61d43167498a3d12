// Package cmdline reads a Bash command line into the commands it would run: it parses the
// line with mvdan.cc/sh (bash dialect; the only shell parser of the check), walks the syntax
// tree to every simple command wherever it sits (lists, pipelines, subshells, groups, compound
// commands, function bodies, command and process substitutions, here-documents), evaluates
// each word as far as it is literal (quote removal, escapes, brace expansion, globs and tildes
// recorded), and follows what commands run on their behalf: the scripts of shells and eval,
// the commands of wrappers (timeout, sudo, env, xargs, ...) and launchers, find's -exec, git's
// configured commands, and — speculatively — string literals in interpreters' inline code.
//
// It runs nothing and reads no files. What a program does with its arguments comes from the
// knowledge base (package knowledge): which programs are shells, interpreters, launchers and
// wrappers, and where a wrapper's command starts (its role's options, or a peel registered
// from kb_NAME.go beside the entry when no option list can say it).
// What only the permission check knows — a runner's command lines, a database client's shell
// escapes — it adds through [Hooks]. The verdict stages (package bashrules) sit above it; it
// knows no rule, engine or path check.
package cmdline
