package markdown

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/util"
)

// span is a run of text with one styling; a span "\n" is a hard line break.
type span struct {
	text string
	f    flags
}

// inline appends the spans of n's inline children, styled with f and their own markup.
func (w *writer) inline(n ast.Node, f flags, out []span) []span {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			v := c.Segment.Value(w.src)
			if c.IsRaw() {
				out = append(out, span{string(v), f})
			} else {
				out = append(out, span{decode(v), f})
			}
			if c.HardLineBreak() {
				out = append(out, span{"\n", f})
			} else if c.SoftLineBreak() {
				out = append(out, span{" ", f})
			}
		case *ast.String:
			if c.IsCode() || c.IsRaw() {
				out = append(out, span{string(c.Value), f})
			} else {
				out = append(out, span{decode(c.Value), f})
			}
		case *ast.CodeSpan:
			var b strings.Builder
			for t := c.FirstChild(); t != nil; t = t.NextSibling() {
				if t, ok := t.(*ast.Text); ok {
					b.Write(t.Segment.Value(w.src))
				}
			}
			code := strings.ReplaceAll(b.String(), "\n", " ")
			if inTable(c) {
				code = strings.ReplaceAll(code, `\|`, "|")
			}
			out = append(out, span{code, f | fCode})
		case *ast.Emphasis:
			ef := fItalic
			if c.Level >= 2 {
				ef = fBold
			}
			out = w.inline(c, f|ef, out)
		case *east.Strikethrough:
			out = w.inline(c, f|fStrike, out)
		case *east.TaskCheckBox:
			box := "[\u00a0]"
			if c.IsChecked {
				box = "[x]"
			}
			out = append(out, span{box, f | fCheck}, span{" ", f})
		case *ast.Link:
			start := len(out)
			out = w.inline(c, f|fLink, out)
			dest := decode(c.Destination)
			if label := plain(out[start:]); dest != "" && dest != label && dest != "mailto:"+label {
				out = append(out, span{" (" + dest + ")", f | fURL})
			}
		case *ast.Image:
			start := len(out)
			out = w.inline(c, f|fLink, out)
			label := "image: "
			if len(out) == start {
				label = "image "
			}
			out = append(out, span{" (" + label + decode(c.Destination) + ")", f | fURL})
		case *ast.AutoLink:
			out = append(out, span{string(c.Label(w.src)), f | fLink})
		case *ast.RawHTML:
			for i := range c.Segments.Len() {
				seg := c.Segments.At(i)
				out = append(out, span{strings.ReplaceAll(string(seg.Value(w.src)), "\n", " "), f | fHTML})
			}
		default:
			out = w.inline(c, f, out)
		}
	}
	return out
}

func inTable(n ast.Node) bool {
	for p := n.Parent(); p != nil; p = p.Parent() {
		if p.Kind() == east.KindTableCell {
			return true
		}
	}
	return false
}

func plain(spans []span) string {
	var b strings.Builder
	for _, s := range spans {
		b.WriteString(s.text)
	}
	return b.String()
}

// decode resolves backslash escapes and entity and numeric character references, as an
// HTML renderer would before printing text.
func decode(v []byte) string {
	if !bytes.ContainsAny(v, `\&`) {
		return string(v)
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '\\' && i+1 < len(v) && util.IsPunct(v[i+1]):
			b.WriteByte(v[i+1])
			i++
		case c == '&':
			if r, n := reference(v[i:]); n > 0 {
				b.WriteString(r)
				i += n - 1
				continue
			}
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// reference decodes the character reference at the start of v ("&amp;", "&#35;", "&#x23;"),
// returning its text and length, or a zero length when v does not start with one.
func reference(v []byte) (string, int) {
	end := -1
	for i := 1; i < len(v) && i < 40; i++ {
		if v[i] == ';' {
			end = i
			break
		}
	}
	if end < 2 {
		return "", 0
	}
	name := string(v[1:end])
	if name[0] == '#' {
		base, digits := 10, name[1:]
		if len(digits) > 0 && (digits[0] == 'x' || digits[0] == 'X') {
			base, digits = 16, digits[1:]
		}
		if len(digits) == 0 || len(digits) > 7 {
			return "", 0
		}
		n, err := strconv.ParseUint(digits, base, 32)
		if err != nil {
			return "", 0
		}
		r := rune(n)
		if r == 0 || !utf8.ValidRune(r) || isControl(r) {
			r = '\uFFFD'
		}
		return string(r), end + 1
	}
	if e, ok := util.LookUpHTML5EntityByName(name); ok {
		return sanitize(string(e.Characters)), end + 1
	}
	return "", 0
}

// piece is a part of a word with one styling.
type piece struct {
	text string
	f    flags
	w    int
}

// word is a run of text between spaces; br marks a hard line break instead.
type word struct {
	pieces []piece
	w      int
	br     bool
	space  flags // the styling of the space before the word
}

func words(spans []span) []word {
	var out []word
	var cur word
	var spaceF flags
	flush := func() {
		if len(cur.pieces) > 0 {
			out = append(out, cur)
		}
		cur = word{space: spaceF}
	}
	for _, s := range spans {
		if s.text == "\n" {
			flush()
			out = append(out, word{br: true})
			continue
		}
		t := s.text
		for t != "" {
			i := strings.IndexAny(t, " \t\n")
			if i < 0 {
				i = len(t)
			}
			if i > 0 {
				pw := textWidth(t[:i])
				cur.pieces = append(cur.pieces, piece{t[:i], s.f, pw})
				cur.w += pw
			}
			if i == len(t) {
				break
			}
			spaceF = s.f
			flush()
			t = t[i+1:]
		}
	}
	flush()
	return out
}

// line builds one output line, printing each run of equally styled text with one sequence.
type line struct {
	st   *styleSet
	b    strings.Builder
	run  strings.Builder
	f    flags
	cols int
}

func (l *line) add(f flags, text string, w int) {
	if f != l.f {
		l.b.WriteString(l.st.render(l.f, l.run.String()))
		l.run.Reset()
		l.f = f
	}
	l.run.WriteString(text)
	l.cols += w
}

func (l *line) String() string {
	s := l.b.String() + l.st.render(l.f, l.run.String())
	l.b.Reset()
	l.run.Reset()
	l.f, l.cols = 0, 0
	return s
}

// wrap lays spans out in lines at most width columns wide: at spaces, and inside a word
// only when the word alone is wider than a line. Runs of spaces collapse into one.
func (s *styleSet) wrap(spans []span, width int) []string {
	width = max(width, 2) // the widest grapheme fits
	var lines []string
	l := &line{st: s}
	var last flags // styling of the last piece on the line
	flush := func() { lines = append(lines, l.String()) }
	for _, wd := range words(spans) {
		if wd.br {
			flush()
			continue
		}
		if l.cols > 0 {
			if l.cols+1+wd.w > width {
				flush()
			} else {
				sf := flags(0)
				if wd.space == last && wd.space == wd.pieces[0].f {
					sf = wd.space
				}
				l.add(sf, " ", 1)
			}
		}
		for _, p := range wd.pieces {
			t, tw := p.text, p.w
			for l.cols+tw > width {
				head := ansi.Truncate(t, width-l.cols, "")
				if head == "" {
					if l.cols > 0 {
						flush()
						continue
					}
					_, size := utf8.DecodeRuneInString(t)
					head = t[:size]
				}
				l.add(p.f, head, 0)
				flush()
				t = t[len(head):]
				tw = textWidth(t)
			}
			if t != "" {
				l.add(p.f, t, tw)
			}
			last = p.f
		}
	}
	if l.b.Len() > 0 || l.run.Len() > 0 {
		flush()
	}
	return lines
}

// textWidth is ansi.StringWidth with a fast path for ASCII, most of what the model writes.
// The text holds no escape sequences (sanitize replaced ESC), so ASCII is one column a byte.
func textWidth(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return ansi.StringWidth(s)
		}
	}
	return len(s)
}
