package pathrule

import (
	"strings"
	"unicode/utf8"
)

// LiteralPrefix tells an index which paths the pattern can possibly match, so that a caller
// holding many patterns tests a path only against the few that name its elements.
//
// For an anchored pattern it returns the leading elements that are plain text (no wildcard,
// class or "**"), each folded with [FoldKey]: every path the pattern matches starts with
// elements whose FoldKey equals them, in order. For an unanchored pattern made of one plain
// element it returns that element with anchored false: every path it matches has some element
// with that FoldKey. Otherwise it returns nil, and the pattern may match anything.
func (p *Pattern) LiteralPrefix() (elems []string, anchored bool) {
	if !p.anchored {
		if len(p.segs) == 1 && p.segs[0].kind == segLiteral {
			return []string{string(p.segs[0].lit)}, false
		}
		return nil, false
	}
	for i := range p.segs {
		if p.segs[i].kind != segLiteral {
			break
		}
		elems = append(elems, string(p.segs[i].lit))
	}
	return elems, true
}

// FoldKey returns the form of one path element that [Pattern.LiteralPrefix] keys are written
// in: each rune mapped to the canonical member of its case-folding orbit, as Match compares
// them. A plain element matches a path element exactly when their FoldKeys are equal. Bytes
// that are not valid UTF-8 all become U+FFFD; keys may then collide, which only makes an
// index test more patterns, never fewer. An element that is lower-case ASCII is its own key
// and costs no allocation.
func FoldKey(elem string) string {
	i := 0
	for ; i < len(elem); i++ {
		if c := elem[i]; c >= utf8.RuneSelf || 'A' <= c && c <= 'Z' {
			break
		}
	}
	if i == len(elem) {
		return elem
	}
	var b strings.Builder
	b.Grow(len(elem))
	b.WriteString(elem[:i])
	for i < len(elem) {
		r, n := decode(elem, i)
		b.WriteRune(fold(r))
		i += n
	}
	return b.String()
}
