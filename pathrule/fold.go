package pathrule

import (
	"unicode"
	"unicode/utf8"
)

// decode returns the rune starting at s[i] and its width. A byte that does
// not start valid UTF-8 is returned as the negative rune -b, so that distinct
// invalid bytes stay distinct and never equal a real rune (U+FFFD included).
func decode(s string, i int) (rune, int) {
	c := s[i]
	if c < utf8.RuneSelf {
		return rune(c), 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError && n == 1 {
		return -rune(c), 1
	}
	return r, n
}

// decodeLast is decode for the rune ending at s[:end].
func decodeLast(s string, end int) (rune, int) {
	c := s[end-1]
	if c < utf8.RuneSelf {
		return rune(c), 1
	}
	r, n := utf8.DecodeLastRuneInString(s[:end])
	if r == utf8.RuneError && n == 1 {
		return -rune(c), 1
	}
	return r, n
}

// fold maps r to a canonical member of its simple case-folding orbit, so
// that fold(a) == fold(b) exactly when strings.EqualFold would equate the two
// runes. Orbits that contain an ASCII letter map to its lower case, so that
// the ASCII fast paths can simply lower-case; others map to their largest
// member, which is usually the lower case, the common case in paths.
func fold(r rune) rune {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		return r
	}
	canon := r
	for u := unicode.SimpleFold(r); u != r; u = unicode.SimpleFold(u) {
		if u < utf8.RuneSelf {
			return fold(u)
		}
		canon = max(canon, u)
	}
	return canon
}

// Only these two runes beyond ASCII fold to ASCII letters (checked by
// TestFoldToASCII).
const (
	kelvinSign = '\u212a' // K
	longS      = '\u017f' // s
)

// foldEq reports whether the path rune r equals the folded pattern rune l,
// avoiding the orbit walk of fold in the common cases.
func foldEq(r, l rune) bool {
	switch {
	case r == l:
		return true
	case r < utf8.RuneSelf:
		return 'A' <= r && r <= 'Z' && r+('a'-'A') == l
	case l < utf8.RuneSelf:
		return r == kelvinSign && l == 'k' || r == longS && l == 's'
	}
	return fold(r) == l
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		c += 'a' - 'A'
	}
	return c
}
