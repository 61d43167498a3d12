package pathrule

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

type segKind uint8

const (
	segLiteral  segKind = iota // no wildcards
	segStar                    // "*": any element
	segPrefix                  // literal then "*"
	segSuffix                  // "*" then literal
	segGlob                    // anything else within one element
	segGlobstar                // "**" as a whole element of an anchored pattern
)

// segment is one "/"-separated element of a pattern, specialised by shape
// so that the common forms ("name", "*.ext", "prefix*") avoid the general
// matcher.
type segment struct {
	kind segKind
	// first and last are the first and last rune of the element if the
	// pattern fixes them to an ASCII character, else 0: a one-byte look at
	// the path rejects most candidates.
	first, last byte
	lit         []rune // folded literal of segLiteral, segPrefix, segSuffix
	// toks is the token list of segGlob, behind a pointer: glob elements are rare, and a
	// context compiles thousands of segments, so a smaller segment is less memory to clear
	// and to scan.
	toks *[]token
}

// mismatch reports whether the byte c of the path cannot match the pattern
// byte want (0 meaning unknown). Non-ASCII path bytes are never rejected:
// some fold to ASCII (U+212A KELVIN SIGN is a "k").
func mismatch(c, want byte) bool {
	return want != 0 && c < utf8.RuneSelf && lowerASCII(c) != want
}

type tokKind uint8

const (
	tokRune tokKind = iota
	tokAny
	tokStar
	tokClass
)

type token struct {
	kind  tokKind
	r     rune // folded, for tokRune
	class *charClass
}

// matchElem matches the first element of rel. It returns the length of that
// element, or -1 if it did not need to find it because the match failed.
func (s *segment) matchElem(rel string) (int, bool) {
	if len(rel) > 0 && mismatch(rel[0], s.first) {
		return -1, false
	}
	if s.kind == segLiteral {
		// Compare first and look for the end of the element only on success.
		n, ok := foldPrefix(rel, s.lit)
		if !ok || n < len(rel) && rel[n] != '/' {
			return -1, false
		}
		return n, true
	}
	end := strings.IndexByte(rel, '/')
	if end < 0 {
		end = len(rel)
	}
	if s.last != 0 && (end == 0 || mismatch(rel[end-1], s.last)) {
		return end, false
	}
	return end, s.match(rel[:end])
}

func (s *segment) match(elem string) bool {
	switch s.kind {
	case segLiteral:
		n, ok := foldPrefix(elem, s.lit)
		return ok && n == len(elem)
	case segStar, segGlobstar:
		return true
	case segPrefix:
		_, ok := foldPrefix(elem, s.lit)
		return ok
	case segSuffix:
		return foldSuffix(elem, s.lit)
	default:
		return matchTokens(*s.toks, elem)
	}
}

// foldPrefix reports whether s starts with the folded runes lit, ignoring
// case, and how many bytes of s they cover.
func foldPrefix(s string, lit []rune) (int, bool) {
	i := 0
	for _, l := range lit {
		if i >= len(s) {
			return 0, false
		}
		if c := s[i]; c < utf8.RuneSelf {
			if rune(lowerASCII(c)) != l {
				return 0, false
			}
			i++
			continue
		}
		r, n := decode(s, i)
		if !foldEq(r, l) {
			return 0, false
		}
		i += n
	}
	return i, true
}

// foldSuffix reports whether s ends with the folded runes lit, ignoring case.
func foldSuffix(s string, lit []rune) bool {
	end := len(s)
	for k := len(lit) - 1; k >= 0; k-- {
		if end == 0 {
			return false
		}
		if c := s[end-1]; c < utf8.RuneSelf {
			if rune(lowerASCII(c)) != lit[k] {
				return false
			}
			end--
			continue
		}
		r, n := decodeLast(s, end)
		if !foldEq(r, lit[k]) {
			return false
		}
		end -= n
	}
	return true
}

// matchTokens matches one path element against a token list. Since "*"
// cannot cross a "/", only the most recent star needs to be retried, which
// keeps this linear in practice (the classic glob algorithm).
func matchTokens(toks []token, elem string) bool {
	px, nx := 0, 0
	starPx, starNx := -1, 0
	for px < len(toks) || nx < len(elem) {
		if px < len(toks) {
			t := &toks[px]
			if t.kind == tokStar {
				starPx, starNx = px, nx
				px++
				continue
			}
			if nx < len(elem) {
				r, n := decode(elem, nx)
				if t.match(r) {
					px++
					nx += n
					continue
				}
			}
		}
		if starPx >= 0 && starNx < len(elem) {
			_, n := decode(elem, starNx)
			starNx += n
			px, nx = starPx+1, starNx
			continue
		}
		return false
	}
	return true
}

func (t *token) match(r rune) bool {
	switch t.kind {
	case tokRune:
		return foldEq(r, t.r)
	case tokAny:
		return true
	default:
		return t.class.match(r)
	}
}

// charClass is a bracket expression. Members are kept as written; a rune
// matches if any rune of its case-folding orbit is a member. (Git under
// core.ignorecase folds ranges and [:upper:] this way but, oddly, not single
// characters: "[A]" matches neither "a" nor "A" there.)
type charClass struct {
	negated bool
	ascii   [2]uint64 // precomputed answer (negation applied) for runes < 0x80
	singles []rune
	ranges  []runeRange
	posix   uint16 // bit set of indexes into posixNames
}

type runeRange struct{ lo, hi rune }

func (c *charClass) match(r rune) bool {
	if 0 <= r && r < utf8.RuneSelf {
		return c.ascii[r>>6]&(1<<(r&63)) != 0
	}
	return c.slowMatch(r)
}

func (c *charClass) slowMatch(r rune) bool {
	in := c.contains(r)
	for u := unicode.SimpleFold(r); !in && u != r; u = unicode.SimpleFold(u) {
		in = c.contains(u)
	}
	return in != c.negated
}

func (c *charClass) contains(r rune) bool {
	for _, s := range c.singles {
		if r == s {
			return true
		}
	}
	for _, rg := range c.ranges {
		if rg.lo <= r && r <= rg.hi {
			return true
		}
	}
	if c.posix != 0 && 0 <= r && r < utf8.RuneSelf {
		for i := range posixNames {
			if c.posix&(1<<i) != 0 && posixIs(i, byte(r)) {
				return true
			}
		}
	}
	return false
}

func (c *charClass) precompute() {
	for r := rune(0); r < utf8.RuneSelf; r++ {
		if c.slowMatch(r) {
			c.ascii[r>>6] |= 1 << (r & 63)
		}
	}
}

// posixNames are the "[:name:]" classes git's wildmatch accepts; posixIs
// gives git's ASCII-only definitions.
var posixNames = [...]string{"alnum", "alpha", "blank", "cntrl", "digit", "graph", "lower", "print", "punct", "space", "upper", "xdigit"}

func posixIs(class int, c byte) bool {
	switch posixNames[class] {
	case "alnum":
		return isAlpha(c) || isDigit(c)
	case "alpha":
		return isAlpha(c)
	case "blank":
		return c == ' ' || c == '\t'
	case "cntrl":
		return c < 0x20 || c == 0x7f
	case "digit":
		return isDigit(c)
	case "graph":
		return 0x21 <= c && c <= 0x7e
	case "lower":
		return 'a' <= c && c <= 'z'
	case "print":
		return 0x20 <= c && c <= 0x7e
	case "punct":
		return 0x21 <= c && c <= 0x7e && !isAlpha(c) && !isDigit(c)
	case "space":
		return c == ' ' || c == '\t' || c == '\n' || c == '\r'
	case "upper":
		return 'A' <= c && c <= 'Z'
	case "xdigit":
		return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
	}
	return false
}

func isAlpha(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }
