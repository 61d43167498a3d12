// Package markdown renders the Markdown the model writes (CommonMark with GitHub's tables,
// strikethrough and task lists) as styled terminal text for the interactive UI.
//
// Contract of [Renderer.Render]: every output line starts with a two-column indent (the
// transcript draws its "●" there), lines are joined by "\n" with no trailing blank lines, and
// no line is wider than the renderer's width (counted in terminal columns, styling excluded),
// with one exception: a line of a code block is printed verbatim, never wrapped, so a long
// code line may be wider. Table cells that do not fit are truncated with "…"; a table whose
// columns cannot fit at all is printed one "header: value" line per cell instead. Raw HTML is
// shown as text, never interpreted, and control characters of the input are replaced with
// U+FFFD so the model cannot move the cursor or restyle the terminal.
//
// Parsing is goldmark's CommonMark parser; the GFM extensions are our own small parsers
// (gfm.go) because goldmark's extension package compiles its regular expressions at package
// init, a cost every run of reins would pay, headless ones included. Code blocks are not
// syntax highlighted for the same reason (docs/deviations.md).
package markdown

import (
	"strconv"
	"strings"
	"sync"

	"github.com/charmbracelet/x/ansi"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// MinWidth is the narrowest width rendered; a smaller width is treated as MinWidth.
const MinWidth = 20

// margin is the indent of every output line.
const margin = 2

// minContent is the narrowest column a nested block is given. A list item or quote that would
// leave less gives its content the parent's full width instead of indenting it further.
const minContent = 10

// Renderer renders Markdown for one width and theme. It is not safe for concurrent use.
type Renderer struct {
	width int
	st    *styleSet
}

// New returns a Renderer whose lines are at most width columns wide (see the package doc).
func New(width int, theme Theme) *Renderer {
	return &Renderer{width: max(width, MinWidth), st: newStyleSet(theme)}
}

// Render renders src with a Renderer made for this call.
func Render(src string, width int, theme Theme) string {
	return New(width, theme).Render(src)
}

// mdParser is built on first use: building it at init would cost every run of reins.
var mdParser = sync.OnceValue(func() parser.Parser {
	return parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(append(parser.DefaultInlineParsers(),
			util.Prioritized(taskCheckBoxParser{}, 0),
			util.Prioritized(strikethroughParser{}, 500))...),
		parser.WithParagraphTransformers(append(parser.DefaultParagraphTransformers(),
			util.Prioritized(tableTransformer{}, 200))...),
	)
})

// Render renders src (see the package doc for the shape of the output).
func (r *Renderer) Render(src string) string { return r.render(mdParser(), src) }

// render renders src with the parser p (the tests compare mdParser with goldmark's own
// GitHub extensions).
func (r *Renderer) render(p parser.Parser, src string) string {
	source := []byte(sanitize(src))
	doc := p.Parse(text.NewReader(source))
	w := &writer{st: r.st, src: source}
	lines := w.blocks(doc, r.width-margin)
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		if l != "" {
			b.WriteString("  ")
			b.WriteString(l)
		}
	}
	return b.String()
}

// sanitize makes src safe to print: CRLF and lone CR become LF, and every other control
// character (C0 but tab and newline, DEL, C1) and every invalid byte becomes U+FFFD.
func sanitize(src string) string {
	clean := true
	for _, c := range src {
		if isControl(c) || c == '\r' || c == '\uFFFD' {
			clean = false
			break
		}
	}
	if clean {
		return src
	}
	var b strings.Builder
	b.Grow(len(src))
	for i, c := range src {
		switch {
		case c == '\r':
			if i+1 < len(src) && src[i+1] == '\n' {
				continue
			}
			b.WriteByte('\n')
		case isControl(c):
			b.WriteRune('\uFFFD')
		default:
			b.WriteRune(c) // an invalid byte arrives as U+FFFD and is written as such
		}
	}
	return b.String()
}

func isControl(c rune) bool {
	return (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || (c >= 0x7f && c < 0xa0)
}

// writer renders the blocks of one document.
type writer struct {
	st  *styleSet
	src []byte
}

// blocks renders the children of parent at width, a blank line between blocks except
// between the blocks of one item of a tight list.
func (w *writer) blocks(parent ast.Node, width int) []string {
	tight := false
	if parent.Kind() == ast.KindListItem {
		if l, ok := parent.Parent().(*ast.List); ok && l.IsTight {
			tight = true
		}
	}
	var out []string
	for c := parent.FirstChild(); c != nil; c = c.NextSibling() {
		ls := w.block(c, width)
		if len(ls) == 0 {
			continue
		}
		if len(out) > 0 && !tight {
			out = append(out, "")
		}
		out = append(out, ls...)
	}
	return out
}

func (w *writer) block(n ast.Node, width int) []string {
	switch n := n.(type) {
	case *ast.Paragraph, *ast.TextBlock:
		return w.st.wrap(w.inline(n, 0, nil), width)
	case *ast.Heading:
		f := fBold | fHeading
		spans := append([]span{{strings.Repeat("#", n.Level) + " ", f}}, w.inline(n, f, nil)...)
		return w.st.wrap(spans, width)
	case *ast.ThematicBreak:
		return []string{w.st.render(fRule, strings.Repeat("─", width))}
	case *ast.CodeBlock, *ast.FencedCodeBlock:
		return w.code(n)
	case *ast.Blockquote:
		return w.quote(n, width)
	case *ast.List:
		return w.list(n, width)
	case *ast.HTMLBlock:
		return w.html(n, width)
	case *east.Table:
		return w.table(n, width)
	}
	if n.Type() == ast.TypeBlock && n.HasChildren() {
		return w.blocks(n, width)
	}
	return nil
}

// code prints a code block's lines verbatim (tabs expanded), indented by two columns.
func (w *writer) code(n ast.Node) []string {
	ls := n.Lines()
	out := make([]string, 0, ls.Len())
	for i := range ls.Len() {
		seg := ls.At(i)
		line := strings.TrimRight(string(seg.Value(w.src)), "\n")
		line = strings.Repeat(" ", seg.Padding) + line
		if strings.TrimSpace(line) == "" {
			out = append(out, "")
			continue
		}
		out = append(out, "  "+w.st.render(fCodeBlock, expandTabs(line)))
	}
	return out
}

// expandTabs replaces tabs with spaces up to the next multiple of four columns.
func expandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	col := 0
	for _, c := range s {
		if c == '\t' {
			n := 4 - col%4
			b.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		}
		b.WriteRune(c)
		col++
	}
	return b.String()
}

func (w *writer) quote(n *ast.Blockquote, width int) []string {
	if width-2 < minContent {
		return w.blocks(n, width)
	}
	inner := w.blocks(n, width-2)
	bar := w.st.render(fQuote, "│")
	for i, l := range inner {
		if l == "" {
			inner[i] = bar
		} else {
			inner[i] = bar + " " + l
		}
	}
	return inner
}

var bullets = []string{"•", "◦", "▪"}

// list renders a list's items under their markers; ordered lists count from their start
// number, markers right-aligned.
func (w *writer) list(n *ast.List, width int) []string {
	depth := 0
	for p := n.Parent(); p != nil; p = p.Parent() {
		if p.Kind() == ast.KindList {
			depth++
		}
	}
	count := n.ChildCount()
	markers := make([]string, 0, count)
	mw := 0
	for i := range count {
		m := bullets[depth%len(bullets)]
		if n.IsOrdered() {
			m = strconv.Itoa(n.Start+i) + string(n.Marker)
		}
		markers = append(markers, m)
		mw = max(mw, ansi.StringWidth(m))
	}
	mw++ // the space after the marker
	var out []string
	i := 0
	for item := n.FirstChild(); item != nil; item = item.NextSibling() {
		if i > 0 && !n.IsTight {
			out = append(out, "")
		}
		m := markers[i]
		if n.IsOrdered() {
			m = strings.Repeat(" ", mw-1-ansi.StringWidth(m)) + m
		}
		m = w.st.render(fMarker, m) + " "
		i++
		if width-mw < minContent {
			out = append(out, strings.TrimRight(m, " "))
			out = append(out, w.blocks(item, width)...)
			continue
		}
		inner := w.blocks(item, width-mw)
		if len(inner) == 0 {
			out = append(out, strings.TrimRight(m, " "))
			continue
		}
		pad := strings.Repeat(" ", mw)
		for j, l := range inner {
			switch {
			case j == 0:
				out = append(out, m+l)
			case l == "":
				out = append(out, "")
			default:
				out = append(out, pad+l)
			}
		}
	}
	return out
}

// html shows an HTML block as text, each source line wrapped on its own.
func (w *writer) html(n *ast.HTMLBlock, width int) []string {
	var out []string
	add := func(seg text.Segment) {
		line := strings.TrimRight(string(seg.Value(w.src)), "\n")
		ls := w.st.wrap([]span{{line, fHTML}}, width)
		if len(ls) == 0 {
			ls = []string{""}
		}
		out = append(out, ls...)
	}
	ls := n.Lines()
	for i := range ls.Len() {
		add(ls.At(i))
	}
	if n.HasClosure() {
		add(n.ClosureLine)
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}
