package pathrule

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Compile parses one gitignore-style pattern. See the package documentation
// for the syntax and for the patterns it rejects.
func Compile(pattern string) (*Pattern, error) {
	p, err := compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("invalid path pattern %q: %w", pattern, err)
	}
	return p, nil
}

var errEmpty = errors.New("empty pattern")

func compile(pattern string) (*Pattern, error) { return compileIn(pattern, nil) }

// compileIn is compile allocating from b (nil: the heap).
func compileIn(pattern string, b *Batch) (*Pattern, error) {
	if strings.ContainsAny(pattern, "\n\r") {
		return nil, errors.New("pattern contains a line break")
	}
	s := trimTrailingSpaces(unescapeSlashes(pattern))
	if s == "" {
		return nil, errEmpty
	}
	switch s[0] {
	case '#':
		return nil, errors.New(`a leading "#" makes it a comment (write "\#" for a literal "#")`)
	case '!':
		return nil, errors.New(`negation is not supported (write "\!" for a literal "!")`)
	}
	// Claude Code drops "/**" before node-ignore trims spaces; trimming on
	// both sides of the drop covers either order.
	s = trimTrailingSpaces(dropTrailingGlobstar(s))

	p := b.newPattern()
	p.src = pattern
	if strings.HasSuffix(s, "/") {
		s = s[:len(s)-1]
		p.dirOnly = true
	}
	// As in git, any "/" left (even inside brackets) anchors the pattern,
	// and only one leading "/" is dropped.
	p.anchored = strings.IndexByte(s, '/') >= 0
	s = strings.TrimPrefix(s, "/")
	if s == "" {
		return nil, errEmpty
	}
	segs, all, err := parseSegments(s, p.anchored, b)
	if err != nil {
		return nil, err
	}
	if p.anchored && len(segs) == 2 && segs[0].kind == segGlobstar && segs[1].kind != segGlobstar {
		// "**/x" matches x at any depth: the same as an unanchored "x",
		// which is cheaper to match.
		segs, p.anchored = segs[1:], false
	}
	p.segs, p.all = segs, all
	for i := range segs {
		if segs[i].kind == segGlobstar {
			p.globstars = true
		}
	}
	return p, nil
}

// unescapeSlashes turns every escaped "/" into a plain one before anything
// else looks at the pattern. (Git mostly treats "\/" like "/", but not for
// the leading and trailing "/" or after "**"; one rule is easier to state.)
func unescapeSlashes(s string) string {
	if !strings.Contains(s, `\/`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			if s[i+1] != '/' {
				b.WriteByte('\\')
			}
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// trimTrailingSpaces drops trailing spaces unless escaped by a backslash, as
// git does. A trailing lone backslash leaves the pattern untouched.
func trimTrailingSpaces(s string) string {
	if s == "" || s[len(s)-1] != ' ' {
		return s // nothing to trim, escaped or not
	}
	last := -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			if last < 0 {
				last = i
			}
		case '\\':
			i++
			if i == len(s) {
				return s
			}
			last = -1
		default:
			last = -1
		}
	}
	if last >= 0 {
		return s[:last]
	}
	return s
}

// dropTrailingGlobstar removes a trailing "/**", as Claude Code does before
// handing a rule to node-ignore, unless nothing would be left.
func dropTrailingGlobstar(s string) string {
	rest, ok := strings.CutSuffix(s, "/**")
	if !ok || strings.TrimPrefix(rest, "/") == "" {
		return s
	}
	return rest
}

// parseSegments splits the body of a pattern (no leading or trailing "/")
// into elements. all reports whether every element is a "**".
func parseSegments(s string, anchored bool, b *Batch) (segs []segment, all bool, err error) {
	if plainASCII(s) {
		return parsePlain(s, b), false, nil
	}
	return parseGeneral(s, anchored, b)
}

// plainASCII reports whether s is ASCII without a wildcard, class or escape:
// every element of such a pattern is a literal.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= utf8.RuneSelf, c == '*', c == '?', c == '[', c == '\\':
			return false
		}
	}
	return true
}

// parsePlain is parseGeneral for a plainASCII pattern (most rules name plain
// paths), without building tokens: each element is a literal, lower-cased.
func parsePlain(s string, b *Batch) []segment {
	segs := b.segments(strings.Count(s, "/") + 1)
	arena := b.runesOf(len(s))
	for i := 0; i < len(s); i++ {
		arena[i] = rune(lowerASCII(s[i]))
	}
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] != '/' {
			continue
		}
		sg := segment{kind: segLiteral, lit: arena[start:i:i]}
		if i > start {
			sg.first, sg.last = lowerASCII(s[start]), lowerASCII(s[i-1])
		}
		segs = append(segs, sg)
		start = i + 1
	}
	return segs
}

// parseGeneral is parseSegments for any pattern.
func parseGeneral(s string, anchored bool, b *Batch) (segs []segment, all bool, err error) {
	// toks is scratch space for the element being parsed, reused for every element (and
	// every pattern of a batch): makeSegment copies what a segment keeps.
	toks := b.scratch()
	defer b.keepScratch(toks)
	segs = b.segments(strings.Count(s, "/") + 1)
	// The literals of all elements share one array: a pattern has no more runes than bytes.
	arena := b.runesOf(len(s))[:0]
	all = true
	stars := 0        // unescaped "*" in the current element
	onlyStars := true // the current element is nothing but unescaped "*"
	flush := func() {
		globstar := onlyStars && stars >= 2
		all = all && globstar
		segs = append(segs, makeSegment(toks, globstar, anchored, &arena))
		toks, stars, onlyStars = toks[:0], 0, true
	}
	for i := 0; i < len(s); {
		switch s[i] {
		case '/':
			flush()
			i++
		case '*':
			stars++
			// Stars that do not form a whole element never cross a "/", so a
			// run of them is one "*".
			if len(toks) == 0 || toks[len(toks)-1].kind != tokStar {
				toks = append(toks, token{kind: tokStar})
			}
			i++
		case '?':
			toks = append(toks, token{kind: tokAny})
			onlyStars = false
			i++
		case '[':
			c, n, err := parseClass(s[i:])
			if err != nil {
				return nil, false, err
			}
			toks = append(toks, token{kind: tokClass, class: c})
			onlyStars = false
			i += n
		case '\\':
			if i+1 == len(s) {
				return nil, false, errors.New("trailing backslash")
			}
			r, n := decode(s, i+1)
			i += 1 + n
			toks = append(toks, token{kind: tokRune, r: fold(r)})
			onlyStars = false
		default:
			r, n := decode(s, i)
			toks = append(toks, token{kind: tokRune, r: fold(r)})
			onlyStars = false
			i += n
		}
	}
	flush()
	if !anchored {
		return segs, all, nil
	}
	// Consecutive "**" elements mean the same as one.
	out := segs[:0]
	for _, sg := range segs {
		if sg.kind == segGlobstar && len(out) > 0 && out[len(out)-1].kind == segGlobstar {
			continue
		}
		out = append(out, sg)
	}
	return out, all, nil
}

// makeSegment picks the cheapest representation for one element.
func makeSegment(toks []token, globstar, anchored bool, arena *[]rune) segment {
	s := makeSegmentKind(toks, globstar, anchored, arena)
	if s.kind == segGlobstar || s.kind == segStar {
		return s
	}
	ascii := func(t token) byte {
		if t.kind == tokRune && 0 <= t.r && t.r < utf8.RuneSelf {
			return byte(t.r)
		}
		return 0
	}
	if len(toks) > 0 {
		s.first, s.last = ascii(toks[0]), ascii(toks[len(toks)-1])
	}
	return s
}

func makeSegmentKind(toks []token, globstar, anchored bool, arena *[]rune) segment {
	if globstar {
		if anchored {
			return segment{kind: segGlobstar}
		}
		// Unanchored, "**" is matched against one name, like "*".
		return segment{kind: segStar}
	}
	if len(toks) == 1 && toks[0].kind == tokStar {
		return segment{kind: segStar}
	}
	runes := func(ts []token) ([]rune, bool) {
		for _, t := range ts {
			if t.kind != tokRune {
				return nil, false
			}
		}
		start := len(*arena)
		for _, t := range ts {
			*arena = append(*arena, t.r)
		}
		return (*arena)[start:len(*arena):len(*arena)], true
	}
	if lit, ok := runes(toks); ok {
		return segment{kind: segLiteral, lit: lit}
	}
	if toks[0].kind == tokStar {
		if lit, ok := runes(toks[1:]); ok {
			return segment{kind: segSuffix, lit: lit}
		}
	}
	if toks[len(toks)-1].kind == tokStar {
		if lit, ok := runes(toks[:len(toks)-1]); ok {
			return segment{kind: segPrefix, lit: lit}
		}
	}
	t := slices.Clone(toks)
	return segment{kind: segGlob, toks: &t}
}

// parseClass parses the bracket expression at the start of s, following
// git's wildmatch: "!" or "^" negates; a "]" right after the opening bracket
// (or the negation) is a member; "a-z" is a range unless "-" comes first or
// last; a backslash escapes; "[:name:]" is a POSIX class. It returns the
// class and the number of bytes consumed.
func parseClass(s string) (*charClass, int, error) {
	errOpen := errors.New(`unterminated "[" (write "\[" for a literal "[")`)
	c := &charClass{}
	i := 1
	if i < len(s) && (s[i] == '!' || s[i] == '^') {
		c.negated = true
		i++
	}
	var prev rune
	hasPrev := false
	for first := true; ; first = false {
		if i >= len(s) {
			return nil, 0, errOpen
		}
		if s[i] == ']' && !first {
			i++
			break
		}
		switch {
		case s[i] == '\\':
			i++
			if i >= len(s) {
				return nil, 0, errOpen
			}
			r, n := decode(s, i)
			c.singles = append(c.singles, r)
			prev, hasPrev = r, true
			i += n
		case s[i] == '-' && hasPrev && i+1 < len(s) && s[i+1] != ']':
			i++
			if s[i] == '\\' {
				i++
				if i >= len(s) {
					return nil, 0, errOpen
				}
			}
			hi, n := decode(s, i)
			c.ranges = append(c.ranges, runeRange{prev, hi})
			hasPrev = false
			i += n
		case s[i] == '[' && i+1 < len(s) && s[i+1] == ':':
			end := strings.IndexByte(s[i+2:], ']')
			if end < 0 {
				return nil, 0, errOpen
			}
			name := s[i+2 : i+2+end]
			if !strings.HasSuffix(name, ":") {
				// Not "[:name:]" after all: a literal "[".
				c.singles = append(c.singles, '[')
				prev, hasPrev = '[', true
				i++
				continue
			}
			name = name[:len(name)-1]
			k := posixIndex(name)
			if k < 0 {
				return nil, 0, fmt.Errorf("unknown character class [:%s:]", name)
			}
			c.posix |= 1 << k
			hasPrev = false
			i += 2 + end + 1
		default:
			r, n := decode(s, i)
			c.singles = append(c.singles, r)
			prev, hasPrev = r, true
			i += n
		}
	}
	c.precompute()
	return c, i, nil
}

func posixIndex(name string) int {
	for i, n := range posixNames {
		if n == name {
			return i
		}
	}
	return -1
}
