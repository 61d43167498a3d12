package markdown

// The GitHub extensions: strikethrough, task list items and tables, parsed into goldmark's
// extension node types. They are written here without regular expressions so that nothing
// is compiled at package init (goldmark's extension package compiles a dozen).

import (
	"bytes"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// strikethroughParser reads "~text~" and "~~text~~".
type strikethroughParser struct{}

func (strikethroughParser) Trigger() []byte { return []byte{'~'} }

func (strikethroughParser) Parse(_ ast.Node, block text.Reader, pc parser.Context) ast.Node {
	before := block.PrecendingCharacter()
	line, seg := block.PeekLine()
	d := parser.ScanDelimiter(line, before, 1, tildes{})
	if d == nil || d.OriginalLength > 2 || before == '~' {
		return nil
	}
	d.Segment = seg.WithStop(seg.Start + d.OriginalLength)
	block.Advance(d.OriginalLength)
	pc.PushDelimiter(d)
	return d
}

func (strikethroughParser) CloseBlock(ast.Node, parser.Context) {}

type tildes struct{}

func (tildes) IsDelimiter(b byte) bool { return b == '~' }

// CanOpenCloser pairs runs of the same length, as GitHub does: "~~a~" is not struck.
func (tildes) CanOpenCloser(o, c *parser.Delimiter) bool {
	return o.Char == c.Char && o.OriginalLength == c.OriginalLength
}

func (tildes) OnMatch(int) ast.Node { return east.NewStrikethrough() }

// taskCheckBoxParser reads "[ ]" or "[x]" followed by a space at the start of a list item.
type taskCheckBoxParser struct{}

func (taskCheckBoxParser) Trigger() []byte { return []byte{'['} }

func (taskCheckBoxParser) Parse(parent ast.Node, block text.Reader, _ parser.Context) ast.Node {
	item := parent.Parent()
	if item == nil || item.Kind() != ast.KindListItem || item.FirstChild() != parent || parent.HasChildren() {
		return nil
	}
	line, _ := block.PeekLine()
	if len(line) < 4 || line[0] != '[' || line[2] != ']' || (line[3] != ' ' && line[3] != '\t') {
		return nil
	}
	var checked bool
	switch line[1] {
	case ' ':
	case 'x', 'X':
		checked = true
	default:
		return nil
	}
	n := 4
	for n < len(line) && (line[n] == ' ' || line[n] == '\t') {
		n++
	}
	block.Advance(n)
	return east.NewTaskCheckBox(checked)
}

func (taskCheckBoxParser) CloseBlock(ast.Node, parser.Context) {}

// tableTransformer turns a paragraph whose line is followed by a delimiter row ("| --- | :-: |")
// into a table; lines before the header stay a paragraph. The header must contain a pipe and
// have as many cells as the delimiter row; a body row's missing cells are empty and extra
// cells are dropped.
type tableTransformer struct{}

func (tableTransformer) Transform(node *ast.Paragraph, reader text.Reader, _ parser.Context) {
	lines := node.Lines()
	src := reader.Source()
	for i := 1; i < lines.Len(); i++ {
		seg := lines.At(i)
		aligns := delimiterRow(seg.Value(src))
		if aligns == nil {
			continue
		}
		head := lines.At(i - 1)
		cells := splitRow(src, head)
		if !bytes.ContainsRune(src[head.Start:head.Stop], '|') || len(cells) != len(aligns) {
			return
		}
		table := east.NewTable()
		table.Alignments = aligns
		table.AppendChild(table, east.NewTableHeader(tableRow(cells, aligns)))
		for j := i + 1; j < lines.Len(); j++ {
			table.AppendChild(table, tableRow(splitRow(src, lines.At(j)), aligns))
		}
		parent := node.Parent()
		parent.InsertAfter(parent, node, table)
		if i == 1 {
			parent.RemoveChild(parent, node)
			return
		}
		lines.SetSliced(0, i-1)
		last := lines.At(i - 2)
		last = last.TrimRightSpace(src)
		lines.Set(i-2, last)
		return
	}
}

func tableRow(cells []text.Segment, aligns []east.Alignment) *east.TableRow {
	row := east.NewTableRow(aligns)
	for k, a := range aligns {
		cell := east.NewTableCell()
		cell.Alignment = a
		if k < len(cells) {
			cell.Lines().Append(cells[k])
		}
		row.AppendChild(row, cell)
	}
	return row
}

// splitRow splits a table line at its unescaped pipes, leading and trailing pipe dropped,
// each cell trimmed.
func splitRow(src []byte, line text.Segment) []text.Segment {
	line = line.TrimLeftSpace(src)
	line = line.TrimRightSpace(src)
	v := line.Value(src)
	start, stop := 0, len(v)
	if stop > 0 && v[0] == '|' {
		start++
	}
	if stop > start && v[stop-1] == '|' && (stop < 2 || v[stop-2] != '\\') {
		stop--
	}
	var cells []text.Segment
	from := start
	for k := start; k <= stop; k++ {
		if k < stop && (v[k] != '|' || (k > 0 && v[k-1] == '\\')) {
			continue
		}
		seg := text.NewSegment(line.Start+from, line.Start+k)
		seg = seg.TrimLeftSpace(src)
		cells = append(cells, seg.TrimRightSpace(src))
		from = k + 1
	}
	return cells
}

// delimiterRow returns the alignments of a delimiter row, or nil when line is not one.
func delimiterRow(line []byte) []east.Alignment {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || len(bytes.Trim(line, "|-: \t")) > 0 || !bytes.ContainsRune(line, '-') {
		return nil
	}
	line = bytes.TrimPrefix(line, []byte("|"))
	line = bytes.TrimSuffix(line, []byte("|"))
	var aligns []east.Alignment
	for _, col := range bytes.Split(line, []byte("|")) {
		col = bytes.TrimSpace(col)
		left, right := bytes.HasPrefix(col, []byte(":")), bytes.HasSuffix(col, []byte(":"))
		dashes := col
		if left {
			dashes = dashes[1:]
		}
		if right && len(dashes) > 0 {
			dashes = dashes[:len(dashes)-1]
		}
		if len(dashes) == 0 || len(bytes.Trim(dashes, "-")) > 0 {
			return nil
		}
		switch {
		case left && right:
			aligns = append(aligns, east.AlignCenter)
		case left:
			aligns = append(aligns, east.AlignLeft)
		case right:
			aligns = append(aligns, east.AlignRight)
		default:
			aligns = append(aligns, east.AlignNone)
		}
	}
	return aligns
}
