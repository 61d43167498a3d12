package markdown

import (
	"strings"
	"testing"
	"unicode"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// FuzzRender checks, for any input and width, that Render
//   - does not panic, and the plain theme prints no control character but newline;
//   - keeps, in either theme, the shape checkShape checks: the indent, no trailing newline,
//     and no line wider than max(width, MinWidth) columns unless the line ends with two
//     spaces and then a whole line of a code block of the input (code lines are never
//     wrapped);
//   - loses no text: the words (runs of letters and digits) of every text node, code span
//     and code block line outside tables appear in the output in document order. Tables
//     are left out because their cells are truncated to fit.
func FuzzRender(f *testing.F) {
	for _, c := range cases {
		for _, w := range goldenWidths {
			f.Add(c.src, w)
		}
	}
	f.Fuzz(func(t *testing.T, src string, width int) {
		width %= 300
		if width < 0 {
			width = -width
		}
		out := Render(src, width, Plain)
		for _, c := range out {
			if c != '\n' && (isControl(c) || c == '\r') {
				t.Fatalf("control character %q in the plain output", c)
			}
		}
		checkShape(t, src, out, width)
		checkShape(t, src, Render(src, width, Dark), width)
		source := []byte(sanitize(src))
		doc := mdParser().Parse(text.NewReader(source))
		flat := letters(out)
		pos := 0
		for _, w := range textWords(doc, source) {
			i := strings.Index(flat[pos:], w)
			if i < 0 {
				t.Fatalf("word %q is missing (or out of order) in\n%s", w, out)
			}
			pos += i + len(w)
		}
	})
}

func codeLines(doc ast.Node, src []byte) []string {
	var out []string
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering && (n.Kind() == ast.KindCodeBlock || n.Kind() == ast.KindFencedCodeBlock) {
			for i := range n.Lines().Len() {
				seg := n.Lines().At(i)
				l := strings.Repeat(" ", seg.Padding) + strings.TrimRight(string(seg.Value(src)), "\n")
				out = append(out, expandTabs(l))
			}
		}
		return ast.WalkContinue, nil
	})
	return out
}

// textWords returns the words of the document's text in document order, tables left out.
func textWords(doc ast.Node, src []byte) []string {
	var out []string
	add := func(s string) {
		out = append(out, strings.FieldsFunc(s, func(r rune) bool { return !isWordRune(r) })...)
	}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *east.Table:
			return ast.WalkSkipChildren, nil
		case *ast.Text:
			if n.IsRaw() {
				add(string(n.Segment.Value(src)))
			} else {
				add(decode(n.Segment.Value(src)))
			}
		case *ast.String:
			add(decode(n.Value))
		case *ast.AutoLink:
			add(string(n.Label(src)))
		case *ast.CodeBlock, *ast.FencedCodeBlock:
			for i := range n.Lines().Len() {
				seg := n.Lines().At(i)
				add(string(seg.Value(src)))
			}
		}
		return ast.WalkContinue, nil
	})
	return out
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func letters(s string) string {
	return strings.Map(func(r rune) rune {
		if isWordRune(r) {
			return r
		}
		return -1
	}, s)
}
