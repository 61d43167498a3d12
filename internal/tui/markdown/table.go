package markdown

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
	east "github.com/yuin/goldmark/extension/ast"
)

// minColumn is the narrowest a column is squeezed to before the table is stacked instead.
const minColumn = 3

// table renders a table with columns as wide as their widest cell. When that is wider than
// width, the widest columns give up columns until the table fits and their cells are
// truncated with "…"; when even minColumn-wide columns do not fit, the table is stacked.
func (w *writer) table(n *east.Table, width int) []string {
	var rows [][][]span
	for r := n.FirstChild(); r != nil; r = r.NextSibling() {
		var f flags
		if r.Kind() == east.KindTableHeader {
			f = fBold
		}
		var cells [][]span
		for c := r.FirstChild(); c != nil; c = c.NextSibling() {
			cells = append(cells, oneLine(w.inline(c, f, nil)))
		}
		rows = append(rows, cells)
	}
	cols := len(n.Alignments)
	if len(rows) == 0 || cols == 0 {
		return nil
	}
	cw := make([]int, cols)
	for _, row := range rows {
		for k, cell := range row {
			cw[k] = max(cw[k], spansWidth(cell))
		}
	}
	const sep = 3 // " │ "
	total := func() int {
		t := sep * (cols - 1)
		for _, x := range cw {
			t += x
		}
		return t
	}
	for total() > width {
		widest := 0
		for k := range cw {
			if cw[k] > cw[widest] {
				widest = k
			}
		}
		if cw[widest] <= minColumn {
			return w.stacked(rows, width)
		}
		cw[widest]--
	}
	bar := w.st.render(fTableRule, " │ ")
	var out []string
	for i, row := range rows {
		var b strings.Builder
		for k, cell := range row {
			if k > 0 {
				b.WriteString(bar)
			}
			b.WriteString(w.cell(cell, cw[k], n.Alignments[k], k == cols-1))
		}
		out = append(out, strings.TrimRight(b.String(), " "))
		if i == 0 {
			parts := make([]string, cols)
			for k, x := range cw {
				parts[k] = strings.Repeat("─", x)
			}
			out = append(out, w.st.render(fTableRule, strings.Join(parts, "─┼─")))
		}
	}
	return out
}

// cell renders spans truncated or padded to width as align says; the last column is not
// padded on the right.
func (w *writer) cell(spans []span, width int, align east.Alignment, last bool) string {
	spans = truncate(spans, width)
	gap := width - spansWidth(spans)
	left := 0
	switch align {
	case east.AlignRight:
		left = gap
	case east.AlignCenter:
		left = gap / 2
	}
	var b strings.Builder
	b.WriteString(strings.Repeat(" ", left))
	for _, s := range spans {
		b.WriteString(w.st.render(s.f, s.text))
	}
	if !last {
		b.WriteString(strings.Repeat(" ", gap-left))
	}
	return b.String()
}

// stacked renders a table too wide for any layout as "header: value" lines, one block per
// body row.
func (w *writer) stacked(rows [][][]span, width int) []string {
	header := rows[0]
	var out []string
	if len(rows) == 1 {
		for _, h := range header {
			out = append(out, w.st.wrap(h, width)...)
		}
		return out
	}
	for i, row := range rows[1:] {
		if i > 0 {
			out = append(out, "")
		}
		for k, cell := range row {
			spans := append(append([]span{}, header[k]...), span{": ", fBold})
			out = append(out, w.st.wrap(append(spans, cell...), width)...)
		}
	}
	return out
}

// oneLine makes a cell's spans one line (a table cell cannot break) without tabs, whose
// width depends on where the terminal's tab stops are.
func oneLine(spans []span) []span {
	for i, s := range spans {
		if strings.ContainsAny(s.text, "\n\t") {
			spans[i].text = strings.NewReplacer("\n", " ", "\t", " ").Replace(s.text)
		}
	}
	return spans
}

func spansWidth(spans []span) int {
	n := 0
	for _, s := range spans {
		n += textWidth(s.text)
	}
	return n
}

// truncate cuts spans to width columns, the last of them "…" when something was cut.
func truncate(spans []span, width int) []span {
	if spansWidth(spans) <= width {
		return spans
	}
	var out []span
	room := width - 1
	for _, s := range spans {
		sw := textWidth(s.text)
		if sw <= room {
			out = append(out, s)
			room -= sw
			continue
		}
		if head := ansi.Truncate(s.text, room, ""); head != "" {
			out = append(out, span{head, s.f})
		}
		break
	}
	// "…" right after the text it stands for, not after a space.
	for len(out) > 0 {
		last := &out[len(out)-1]
		last.text = strings.TrimRight(last.text, " ")
		if last.text != "" {
			break
		}
		out = out[:len(out)-1]
	}
	return append(out, span{"…", 0})
}
