package memory

import (
	"strings"
)

// Import is one @path in a memory file; Line and Col (1-based, bytes) are where its @ is.
type Import struct {
	Path      string
	Line, Col int
}

// Imports lists the @path imports of a memory file's content, in order. An @ counts at the
// start of a line or after white space, never in a code span or a fenced or indented code
// block. The path ends at white space; "\ " is a space within it, and a #fragment is dropped.
// Paths that cannot be files are not imports: an empty one, and one that does not start with
// a letter, digit, '.', '_', '-', '/' or '~' (so "@@x", "@(x)" and "@:" are text).
func Imports(content string) []Import {
	var out []Import
	var fence string // the opening fence of the code block we are in
	prevBlank := true
	inIndented := false
	for n, line := range strings.Split(content, "\n") {
		line = strings.TrimSuffix(line, "\r")
		trimmed := strings.TrimLeft(line, " ")
		indent := len(line) - len(trimmed)
		switch {
		case fence != "":
			if indent < 4 && strings.HasPrefix(trimmed, fence[:1]) && len(strings.TrimRight(trimmed, fence[:1]+" \t")) == 0 && len(strings.TrimRight(trimmed, " \t")) >= len(fence) {
				fence = ""
			}
			continue
		case indent < 4 && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")):
			fence = trimmed[:fenceLen(trimmed)]
			continue
		}
		blank := strings.TrimSpace(line) == ""
		if (indent >= 4 || strings.HasPrefix(line, "\t")) && !blank && (prevBlank || inIndented) {
			inIndented = true
			prevBlank = false
			continue
		}
		if !blank {
			inIndented = false
		}
		prevBlank = blank
		out = append(out, lineImports(line, n+1)...)
	}
	return out
}

// fenceLen is the length of the run of the fence character that opens a code block.
func fenceLen(s string) int {
	i := 0
	for i < len(s) && s[i] == s[0] {
		i++
	}
	return i
}

// lineImports finds the imports of one line outside its code spans.
func lineImports(line string, n int) []Import {
	var out []Import
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '`':
			// A code span runs to the next run of as many backticks; without one the
			// backticks are text.
			run := fenceLen(line[i:])
			if end := strings.Index(line[i+run:], strings.Repeat("`", run)); end >= 0 {
				i += run + end + run - 1
			} else {
				i += run - 1
			}
		case '@':
			if i > 0 && line[i-1] != ' ' && line[i-1] != '\t' {
				continue
			}
			p, width := importPath(line[i+1:])
			if p != "" {
				out = append(out, Import{Path: p, Line: n, Col: i + 1})
			}
			i += width
		}
	}
	return out
}

// importPath reads the path after an @, returning it (empty when it is no path) and the bytes
// it spans.
func importPath(s string) (string, int) {
	var b strings.Builder
	i := 0
	for i < len(s) {
		c := s[i]
		if c == '\\' && i+1 < len(s) && s[i+1] == ' ' {
			b.WriteByte(' ')
			i += 2
			continue
		}
		if c == ' ' || c == '\t' || c == '`' {
			break
		}
		b.WriteByte(c)
		i++
	}
	p := b.String()
	if j := strings.IndexByte(p, '#'); j >= 0 {
		p = p[:j]
	}
	if p == "" || !startsPath(p[0]) {
		return "", i
	}
	return p, i
}

func startsPath(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '.' || c == '_' || c == '-' || c == '/' || c == '~' || c >= 0x80
}
