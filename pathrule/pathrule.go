// Package pathrule matches slash-separated relative paths against one
// gitignore-style pattern, the way Claude Code matches the content of
// Read(...) and Edit(...) permission rules (it hands them to the node
// "ignore" package, which is case-insensitive by default).
//
// # What the caller resolves first
//
// Rule anchors are not this package's business. The caller turns "//abs",
// "~/x", "/x" (relative to a settings source root) and bare or "./x"
// (relative to the current directory) into a base directory, decides that a
// path outside that base never matches, and then passes:
//
//   - to [Compile], the pattern text relative to the base, in gitignore
//     syntax: a pattern with a "/" anywhere but at its end is anchored at the
//     base ("/x", "a/b"); one without ("x", "*.env", "build/") matches at any
//     depth below it. Nothing else is special: a leading "~" or "./" is
//     literal text (and "./x" can never match a cleaned path).
//   - to [Pattern.Match], the path relative to the base: slash-separated and
//     cleaned (no "." or ".." elements, no empty elements, no leading or
//     trailing "/"), as from filepath.ToSlash(filepath.Rel(base, target)).
//     "" and "." both name the base directory itself.
//
// # Semantics
//
// Matching follows git's gitignore rules (dir.c and wildmatch.c), checked
// against `git check-ignore` in the tests, with these deliberate choices:
//
//   - Case is folded on both sides with Unicode simple case folding, the
//     relation of [strings.EqualFold] (so "k" also matches U+212A KELVIN
//     SIGN, but "ß" does not match "ss"). Git is case-sensitive unless
//     core.ignorecase is set; node-ignore uses JavaScript's /i flag, which
//     agrees on ASCII.
//   - As Claude Code does, a trailing "/**" is removed first (after trailing
//     spaces), so "dir/**" also matches dir itself. The anchoring decision
//     comes afterwards, so "src/**" behaves exactly like "src": it matches a
//     directory named src at any depth (Claude Code v2.1.88 behaviour;
//     write "/src/**" for the top-level one). A lone "/**" is kept.
//   - A match of a directory extends to everything beneath it, because git
//     never looks inside an ignored directory: "secrets" matches
//     "secrets/x/y", and "build/" matches "a/build/x" (but not a file named
//     build). So a pattern matches a path if it matches the path itself or
//     any of its leading directories.
//   - An escaped slash "\/" is a plain "/" everywhere. (Git agrees except
//     at either end of a pattern and right after "**".)
//   - "?", "*" and bracket expressions work on runes, not bytes. Bytes that
//     are not valid UTF-8 match only themselves.
//   - The base directory itself ("") is matched only by patterns made solely
//     of "**" elements, such as "**" or "/**", which mean "everything".
//
// The rest is plain gitignore: "*" matches within one path element, "?" one
// character other than "/", "[...]" one character of a set ("!" or "^"
// first to negate, ranges like "a-z", backslash escapes, POSIX classes like
// "[:digit:]"), and "**" as a whole element any number of elements (at least
// one when it ends the pattern). A backslash makes the next character
// literal, and trailing spaces are dropped unless escaped.
//
// Compile rejects what gitignore would not treat as one matching rule:
// empty or blank patterns, comments ("#..."; write "\#" for a literal "#"),
// negations ("!..."; write "\!"), line breaks, and malformed patterns that
// git could never match (a trailing backslash, an unterminated "[", an
// unknown "[:class:]").
//
// A [Pattern] is immutable and safe for concurrent use. [Pattern.Match] does
// not allocate.
package pathrule

import (
	"strings"
)

// Pattern is a compiled gitignore-style pattern.
type Pattern struct {
	src      string
	anchored bool // matched against leading path elements instead of any element
	dirOnly  bool // trailing "/": only directories (and their contents) match
	all      bool // every element is "**": matches everything, the base included
	segs     []segment
	// globstars reports whether any element of an anchored pattern is "**",
	// which is the only case that needs a search.
	globstars bool
}

// String returns the pattern text as given to Compile.
func (p *Pattern) String() string { return p.src }

// Match reports whether rel matches the pattern. rel is a slash-separated
// path relative to the pattern's base directory, cleaned, with no leading
// slash; "" or "." is the base itself. isDir tells whether rel names a
// directory; every leading element of rel is assumed to be one.
func (p *Pattern) Match(rel string, isDir bool) bool {
	if rel == "" || rel == "." {
		return p.all && (!p.dirOnly || isDir)
	}
	if !p.anchored {
		return p.matchAnyElem(rel, isDir)
	}
	return p.matchLeading(rel, isDir)
}

// matchAnyElem matches an unanchored pattern: git tests it against the base
// name of the path and of every leading directory.
func (p *Pattern) matchAnyElem(rel string, isDir bool) bool {
	s := &p.segs[0]
	for {
		end, ok := s.matchElem(rel)
		if end < 0 {
			if end = strings.IndexByte(rel, '/'); end < 0 {
				end = len(rel)
			}
		}
		if end == len(rel) {
			return ok && (!p.dirOnly || isDir)
		}
		if ok {
			return true // rel[:end] is a directory, so dirOnly holds
		}
		rel = rel[end+1:]
	}
}

// matchLeading matches an anchored pattern: it must match some leading
// sequence of path elements exactly, and that sequence must name a directory
// if the pattern is directory-only.
func (p *Pattern) matchLeading(rel string, isDir bool) bool {
	end := len(rel) + 1 // position past the last element
	dirOK := func(pos int) bool { return !p.dirOnly || pos < end || isDir }
	if !p.globstars {
		pos, ok := matchFixed(p.segs, rel, 0)
		return ok && dirOK(pos)
	}
	// Split the pattern at its "**" elements into fixed blocks. A "**" can
	// absorb any number of elements, so placing each following block at the
	// first position where it matches is never worse than placing it later:
	// no backtracking across blocks is needed.
	segs := p.segs
	b := nextGlobstar(segs, 0)
	pos, ok := matchFixed(segs[:b], rel, 0)
	if !ok {
		return false
	}
	for i := b; i < len(segs); i = b {
		if i == len(segs)-1 {
			// A trailing "**" needs at least one element. If the pattern is
			// directory-only, a directory must end the match somewhere.
			return pos < end && (!p.dirOnly || isDir || strings.IndexByte(rel[pos:], '/') >= 0)
		}
		b = nextGlobstar(segs, i+1)
		for {
			if np, ok := matchFixed(segs[i+1:b], rel, pos); ok && (b < len(segs) || dirOK(np)) {
				pos = np
				break
			}
			if pos >= end {
				return false
			}
			j := strings.IndexByte(rel[pos:], '/')
			if j < 0 {
				return false
			}
			pos += j + 1
		}
	}
	return dirOK(pos)
}

// matchFixed matches segs one to one against the elements of rel starting at
// byte offset pos. It returns the offset of the element after the match,
// len(rel)+1 if none is left.
func matchFixed(segs []segment, rel string, pos int) (int, bool) {
	for k := range segs {
		if pos > len(rel) {
			return pos, false
		}
		end, ok := segs[k].matchElem(rel[pos:])
		if !ok {
			return pos, false
		}
		pos += end + 1
	}
	return pos, true
}

func nextGlobstar(segs []segment, i int) int {
	for ; i < len(segs); i++ {
		if segs[i].kind == segGlobstar {
			return i
		}
	}
	return len(segs)
}
