// Package search implements the Glob and Grep tools with Claude Code's inputs, output
// formats and messages.
//
// # Grep
//
// Grep takes ripgrep's parameters as Claude Code exposes them (pattern, path, glob, type,
// output_mode, -A/-B/-C/context, -n, -i, multiline, head_limit, offset) and prints what
// Claude Code prints: "Found N files" with paths newest first, content lines as
// path:line:text (context lines path-line-text, "--" between groups), or path:count with a
// total. It searches hidden files, skips version-control folders (.git .svn .hg .bzr .jj
// .sl), binary files and files a Read deny rule covers, respects .gitignore inside git
// repositories (nested ones, .git/info/exclude and the global gitignore) as well as .ignore
// and .rgignore, and replaces lines longer than 500 bytes by a notice.
//
// Two engines run a search: ripgrep, when [Options.Ripgrep] names the binary, and a built-in
// Go engine. Both produce the same results for the same tree — TestEngineParity compares them
// for every output mode and option — so a session behaves the same with or without rg
// installed. To make that possible, and the output deterministic, the results of both are
// regrouped per file and sorted (by path for content and count, by modification time for
// file lists) before they are formatted.
//
// The Go engine walks the tree with one worker per core (GOMAXPROCS) sharing a stack of
// directories and file batches; each worker reuses one read buffer, and files from 256 KB on
// are memory-mapped, so memory stays bounded whatever the tree. A literal pattern is found
// by scanning for its rarest byte (a byte-frequency table, bytefreq.go) and comparing the
// whole literal only there. A regexp runs only on the lines that hold a literal every match
// needs (regexp/syntax finds it); when that literal is one part of a sequence, the sequence
// from the literal on is first matched, anchored, at the literal's occurrences, which turns
// away most candidate lines without running the whole pattern. A regexp without such a
// literal runs on each line, where Go's regexp can use its backtracker (on the rest of a
// file it falls back to the slower NFA). Files output stops at a file's first match; count
// output keeps no lines. TestPrefilterAgreesWithPlain, FuzzMatchLines and FuzzRequiredLiteral
// hold these shortcuts to the plain line-by-line search; TestParallelEngineMatchesSequential
// holds the parallel walk to one worker.
//
// Both engines store a file's content lines as they will be printed, path included, so a
// page of output is the files' text copied in order. The rg engine copies each line rg
// prints behind the file's display path, dropping the NUL that marks the end of the line
// number, into a shared arena; it reads content output from a pipe while rg runs, and files
// and count output (one short line per file) from an unlinked temporary file once rg has
// exited, because through a pipe each of a parallel rg's per-file writes woke the reader. The pattern is checked with Go's regexp syntax before anything runs;
// ripgrep-only or PCRE-only constructs (look-around, backreferences) are refused with a
// message saying so.
//
// # Glob
//
// Glob matches doublestar patterns against the files under a directory ("*.go" matches at
// any depth, like `rg --files --glob`; "src/**/*.go" walks only src), returns at most 100
// paths, newest first, relative to the working directory when inside it, and hides
// version-control folders and Read-denied files. Hidden and ignored files are listed.
//
// # Deliberate differences from Claude Code 2.1.88
//
//   - Content and count output is sorted by path (Claude Code prints rg's output in the order
//     rg's threads finish).
//   - Count mode on a single file names the file (rg prints the bare count there, which
//     Claude Code then reports as 0 occurrences).
//   - A binary file named as the path is skipped like any other binary file.
//   - Glob lists newest first (Claude Code's rg --sort=modified lists oldest first) and skips
//     version-control folders; its permission check covers the directory actually walked,
//     so an absolute pattern outside the working directories asks.
//   - Regexps use Go's syntax, a close relative of ripgrep's: \d, \w, \s and \b are ASCII
//     classes in Go and Unicode classes in ripgrep. The parity tests use patterns on which the
//     two agree.
//   - A pattern with $ before ^ (as $^, which matches an empty line): ripgrep 13 matches
//     nothing, the Go engine (like PCRE) matches empty lines.
//   - A file whose first NUL byte lies past the start of the file, after matches: ripgrep may
//     print the matches it found before the NUL; the Go engine skips the whole file.
package search
