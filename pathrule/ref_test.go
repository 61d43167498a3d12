package pathrule

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file holds a deliberately naive model of the package's semantics: a
// rune-based transcription of git's wildmatch (run on the whole path, not per
// element) plus git's "test every leading directory" rule. It shares no
// matching code with the package and is used to cross-check the optimised
// matcher in table tests and under fuzzing.

type refResult int

const (
	refNo refResult = iota
	refYes
	refAbort // git's WM_ABORT_ALL: malformed pattern, nothing can match
)

// refMatch reports whether pattern matches rel. valid is false for the
// patterns Compile must reject without consulting wildmatch (empty,
// comments, negations, line breaks).
func refMatch(pattern, rel string, isDir bool) (matched, valid bool) {
	if strings.ContainsAny(pattern, "\r\n") {
		return false, false
	}
	s := refTrimSpaces(refUnescapeSlashes(pattern))
	if s == "" || s[0] == '#' || s[0] == '!' {
		return false, false
	}
	if r, ok := strings.CutSuffix(s, "/**"); ok && strings.TrimPrefix(r, "/") != "" {
		s = refTrimSpaces(r)
	}
	dirOnly := strings.HasSuffix(s, "/")
	s = strings.TrimSuffix(s, "/")
	anchored := strings.Contains(s, "/")
	s = strings.TrimPrefix(s, "/")
	if s == "" {
		return false, false
	}
	pat := refRunes(s)

	if rel == "" || rel == "." {
		all := true
		for _, e := range strings.Split(s, "/") {
			all = all && len(e) >= 2 && strings.Trim(e, "*") == ""
		}
		return all && (!dirOnly || isDir), true
	}
	elems := strings.Split(rel, "/")
	for k := 1; k <= len(elems); k++ {
		if dirOnly && k == len(elems) && !isDir {
			continue
		}
		subject := elems[k-1]
		if anchored {
			subject = strings.Join(elems[:k], "/")
		}
		w := &refWildcard{p: pat, memo: map[[2]int]refResult{}}
		switch w.match(0, refRunes(subject)) {
		case refYes:
			return true, true
		case refAbort:
			return false, true
		}
	}
	return false, true
}

func refUnescapeSlashes(s string) string {
	var out []byte
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			if s[i+1] == '/' {
				out = append(out, '/')
			} else {
				out = append(out, s[i], s[i+1])
			}
			i++
			continue
		}
		out = append(out, s[i])
	}
	return string(out)
}

// refTrimSpaces is git's trim_trailing_spaces.
func refTrimSpaces(s string) string {
	b := []byte(s)
	lastSpace := -1
	for p := 0; p < len(b); p++ {
		switch b[p] {
		case ' ':
			if lastSpace == -1 {
				lastSpace = p
			}
		case '\\':
			p++
			if p >= len(b) {
				return s
			}
			lastSpace = -1
		default:
			lastSpace = -1
		}
	}
	if lastSpace != -1 {
		return s[:lastSpace]
	}
	return s
}

// refRunes decodes s, mapping each invalid byte b to the rune -b.
func refRunes(s string) []rune {
	var rs []rune
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		if r == utf8.RuneError && n == 1 {
			r = -rune(s[0])
		}
		rs = append(rs, r)
		s = s[n:]
	}
	return rs
}

func refEqualFold(a, b rune) bool {
	if a < 0 || b < 0 {
		return a == b
	}
	return strings.EqualFold(string(a), string(b))
}

// refWildcard is git's dowild (WM_PATHNAME | WM_CASEFOLD) over runes,
// without its shortcuts but memoised, so that stars cannot make it
// exponential.
type refWildcard struct {
	p    []rune
	memo map[[2]int]refResult // by pattern index and remaining text length
}

// match matches p[pi:] against all of t, which is always a suffix of the
// subject. pi is kept so that "**" can look at the rune before it.
func (w *refWildcard) match(pi int, t []rune) refResult {
	key := [2]int{pi, len(t)}
	if r, ok := w.memo[key]; ok {
		return r
	}
	r := w.step(pi, t)
	w.memo[key] = r
	return r
}

func (w *refWildcard) step(pi int, t []rune) refResult {
	p := w.p
	for pi < len(p) {
		pc := p[pi]
		if len(t) == 0 && pc != '*' {
			return refNo
		}
		switch pc {
		case '\\':
			if pi+1 >= len(p) || !refEqualFold(p[pi+1], t[0]) {
				return refNo
			}
			pi += 2
			t = t[1:]
		case '?':
			if t[0] == '/' {
				return refNo
			}
			pi++
			t = t[1:]
		case '[':
			ok, next, res := refClass(p, pi, t[0])
			if res == refAbort {
				return refAbort
			}
			if !ok {
				return refNo
			}
			pi = next
			t = t[1:]
		case '*':
			start := pi
			for pi < len(p) && p[pi] == '*' {
				pi++
			}
			matchSlash := false
			if pi-start >= 2 && (start == 0 || p[start-1] == '/') && (pi == len(p) || p[pi] == '/') {
				matchSlash = true
				if pi < len(p) {
					// "**/" may also match no directory at all.
					if r := w.match(pi+1, t); r != refNo {
						return r
					}
				}
			}
			for k := 0; k <= len(t); k++ {
				if k > 0 && !matchSlash && t[k-1] == '/' {
					break
				}
				if r := w.match(pi, t[k:]); r != refNo {
					return r
				}
			}
			return refNo
		default:
			if !refEqualFold(pc, t[0]) {
				return refNo
			}
			pi++
			t = t[1:]
		}
	}
	if len(t) == 0 {
		return refYes
	}
	return refNo
}

// refClass evaluates the bracket expression at p[pi] against tc, following
// the structure of git's wildmatch; a rune is in the class when any rune of
// its case-folding orbit is.
func refClass(p []rune, pi int, tc rune) (matched bool, next int, res refResult) {
	pi++
	if pi >= len(p) {
		return false, 0, refAbort
	}
	negated := p[pi] == '!' || p[pi] == '^'
	if negated {
		pi++
	}
	var orbit []rune
	orbit = append(orbit, tc)
	if tc >= 0 {
		for u := unicode.SimpleFold(tc); u != tc; u = unicode.SimpleFold(u) {
			orbit = append(orbit, u)
		}
	}
	has := func(f func(r rune) bool) {
		for _, r := range orbit {
			if f(r) {
				matched = true
			}
		}
	}
	var prev rune
	hasPrev := false
	first := true
	for {
		if pi >= len(p) {
			return false, 0, refAbort
		}
		pc := p[pi]
		if pc == ']' && !first {
			break
		}
		first = false
		switch {
		case pc == '\\':
			pi++
			if pi >= len(p) {
				return false, 0, refAbort
			}
			c := p[pi]
			has(func(r rune) bool { return r == c })
			prev, hasPrev = c, true
		case pc == '-' && hasPrev && pi+1 < len(p) && p[pi+1] != ']':
			pi++
			hi := p[pi]
			if hi == '\\' {
				pi++
				if pi >= len(p) {
					return false, 0, refAbort
				}
				hi = p[pi]
			}
			lo := prev
			has(func(r rune) bool { return lo <= r && r <= hi })
			hasPrev = false
		case pc == '[' && pi+1 < len(p) && p[pi+1] == ':':
			s := pi + 2
			e := s
			for e < len(p) && p[e] != ']' {
				e++
			}
			if e >= len(p) {
				return false, 0, refAbort
			}
			if e-s-1 < 0 || p[e-1] != ':' {
				has(func(r rune) bool { return r == '[' })
				prev, hasPrev = '[', true
				break
			}
			name := string(p[s : e-1])
			var f func(r rune) bool
			ascii := func(g func(c rune) bool) func(r rune) bool {
				return func(r rune) bool { return 0 <= r && r < 0x80 && g(r) }
			}
			switch name {
			case "alnum":
				f = ascii(func(c rune) bool { return unicode.IsLetter(c) || unicode.IsDigit(c) })
			case "alpha":
				f = ascii(unicode.IsLetter)
			case "blank":
				f = ascii(func(c rune) bool { return c == ' ' || c == '\t' })
			case "cntrl":
				f = ascii(unicode.IsControl)
			case "digit":
				f = ascii(unicode.IsDigit)
			case "graph":
				f = ascii(func(c rune) bool { return unicode.IsPrint(c) && c != ' ' })
			case "lower":
				f = ascii(unicode.IsLower)
			case "print":
				f = ascii(unicode.IsPrint)
			case "punct":
				f = ascii(func(c rune) bool {
					return unicode.IsPrint(c) && c != ' ' && !unicode.IsLetter(c) && !unicode.IsDigit(c)
				})
			case "space":
				f = ascii(func(c rune) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' })
			case "upper":
				f = ascii(unicode.IsUpper)
			case "xdigit":
				f = ascii(func(c rune) bool { return strings.ContainsRune("0123456789abcdefABCDEF", c) })
			default:
				return false, 0, refAbort
			}
			has(f)
			pi = e
			hasPrev = false
		default:
			has(func(r rune) bool { return r == pc })
			prev, hasPrev = pc, true
		}
		pi++
	}
	if tc == '/' {
		return false, pi + 1, refNo
	}
	return matched != negated, pi + 1, refNo
}
