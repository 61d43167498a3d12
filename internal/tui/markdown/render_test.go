package markdown

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark/text"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// cases cover every element the renderer knows; each is rendered at both goldenWidths.
var cases = []struct{ name, src string }{
	{"empty", ""},
	{"blank", "  \n\n\t\n"},
	{"paragraph", "One soft\nbreak joins lines, and   runs of spaces collapse.\nA hard break  \nkeeps the line, so does a backslash\\\nat the end.\n\nSecond paragraph."},
	{"long-word", "A word wider than the line: " + strings.Repeat("abcdefghij", 9) + " breaks inside itself."},
	{"cjk", "日本語のテキストはとても長いのでラップされる必要があります。中文的文字也是宽的，每个字占两列。Mixed 한국어 text too."},
	{"headings", "# One\n\n## Two\n\n### Three\n\n#### Four\n\n##### Five\n\n###### Six\n\nSetext\n======\n\nSetext two\n----------\n\n# A heading long enough that it has to wrap at the narrow width"},
	{"inline", "*em* _em_ **strong** __strong__ ***both*** ~one~ ~~two~~ `code span` `` a ` b `` and *nested **strong** in em*."},
	{"code-fenced", "Before.\n\n```go\nfunc main() {\n\tfmt.Println(\"a line that is much longer than thirty columns\")\n}\n```\n\n~~~\ntilde fence\n~~~\n\nAfter."},
	{"code-indented", "Text.\n\n    indented code\n      keeps its indent\n\n    and blank lines\n\nText."},
	{"bullets", "- one\n- two\n  - two a\n  - two b\n    - deep\n- three\n\n* star list\n+ plus list"},
	{"ordered", "7. seven\n8. eight\n9. nine\n10. ten\n\n1) paren\n2) marker\n\n1. outer\n   1. inner\n   2. inner two\n2. outer two"},
	{"loose-list", "- first item\n\n  second paragraph of the first item\n\n- second item\n\n  ```\n  code in item\n  ```"},
	{"tasks", "- [ ] open task\n- [x] done task\n- [X] done too\n- [y] not a task\n- not a task [ ]"},
	{"quote", "> quoted text that is long enough to wrap at the narrow width of thirty\n>\n> > nested quote\n>\n> - list in quote\n>   - nested list in quote\n>     with lazy text\n>\n> ```\n> code in quote\n> ```"},
	{"rule", "above\n\n---\n\n***\n\nbelow"},
	{"links", "[text](https://example.com/path) and [https://same.example](https://same.example) and <https://auto.example/x> and <me@example.com> and [ref][r] and ![alt text](pic.png) and ![](bare.png) and [**bold link**](/p \"title\").\n\n[r]: https://ref.example"},
	{"table", "| Name | Count | Notes |\n|:-----|------:|:-----:|\n| alpha | 1 | short |\n| beta \\| pipe | 22 | `x\\|y` |\n| *gamma* | 333 |\n| delta | 4 | extra | dropped |"},
	{"table-wide", "| Column one | Column two | Column three |\n|---|---|---|\n| a fairly long cell of text | another long cell here | and a third long one |"},
	{"table-stacked", "| a | b | c | d | e | f | g | h |\n|---|---|---|---|---|---|---|---|\n| one | two | three | four | five | six | seven | eight |"},
	{"table-after-text", "A paragraph line\n| h1 | h2 |\n| -- | -- |\n| c1 | c2 |"},
	{"html", "<div>\n<b>html block</b> shown as text\n</div>\n\nInline <span class=\"x\">html</span> and <!-- comment --> too."},
	{"entities", "&amp; &lt;tag&gt; &copy; &#35; &#x41; &nosuch; &#0; \\*escaped\\* \\\\ backslash"},
	{"controls", "bell\a escape\x1b[31m red \x9b C1\r\nCRLF line\rCR line\x7f"},
}

var goldenWidths = []int{80, 30}

func TestGolden(t *testing.T) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b strings.Builder
			for _, w := range goldenWidths {
				out := Render(c.src, w, Plain)
				checkShape(t, c.src, out, w)
				b.WriteString("== width " + strconv.Itoa(w) + " ==\n" + out + "\n")
			}
			golden(t, filepath.Join("testdata", c.name+".golden"), b.String())
		})
	}
}

// TestStyled pins the styling: the escapes of both themes, quoted so the golden is readable.
func TestStyled(t *testing.T) {
	src := "# Head\n\n*em* **strong** ~~del~~ `code` [link](https://x.example) <https://y.example>\n\n- [x] done\n\n> quote\n\n```\ncode block\n```\n\n| h |\n|---|\n| c |\n\n---"
	var b strings.Builder
	for _, th := range []struct {
		name  string
		theme Theme
	}{{"dark", Dark}, {"light", Light}} {
		out := Render(src, 40, th.theme)
		checkShape(t, src, out, 40)
		if ansi.Strip(out) != Render(src, 40, Plain) {
			t.Errorf("%s: without its escapes the output differs from the plain rendering", th.name)
		}
		b.WriteString("== " + th.name + " ==\n")
		for _, l := range strings.Split(out, "\n") {
			b.WriteString(strconv.Quote(l) + "\n")
		}
	}
	golden(t, filepath.Join("testdata", "styled.golden"), b.String())
}

// checkShape checks the contract every output of src has: two-column indent, no trailing
// newline, and no line wider than max(width, MinWidth) columns but a code block's line.
func checkShape(t *testing.T, src, out string, width int) {
	t.Helper()
	if out == "" {
		return
	}
	if strings.HasSuffix(out, "\n") {
		t.Errorf("output ends with a newline: %q", out)
	}
	limit := max(width, MinWidth)
	var code []string // a code block's lines, found the first time a line is too wide
	for _, l := range strings.Split(out, "\n") {
		plain := ansi.Strip(l)
		if plain != "" && !strings.HasPrefix(plain, "  ") {
			t.Errorf("line %q lacks the two-column indent", plain)
		}
		if ansi.StringWidth(l) <= limit {
			continue
		}
		if code == nil {
			source := []byte(sanitize(src))
			code = append(codeLines(mdParser().Parse(text.NewReader(source)), source), "")
		}
		if !slices.ContainsFunc(code, func(c string) bool { return c != "" && strings.HasSuffix(plain, "  "+c) }) {
			t.Errorf("line %q is %d columns wide, more than %d, and is no code line", plain, ansi.StringWidth(l), limit)
		}
	}
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs (run go test -update and review the diff)\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

func TestNarrowWidthIsClamped(t *testing.T) {
	src := "- a list item with several words\n  > and a quote inside it with words"
	if got, want := Render(src, 3, Plain), Render(src, MinWidth, Plain); got != want {
		t.Errorf("width 3 renders\n%s\nwant the MinWidth rendering\n%s", got, want)
	}
}

func TestDeepNestingKeepsWidth(t *testing.T) {
	src := strings.Repeat("> - ", 12) + "deeply nested words that must still wrap inside the width"
	out := Render(src, MinWidth, Plain)
	for _, l := range strings.Split(out, "\n") {
		if w := ansi.StringWidth(l); w > MinWidth {
			t.Errorf("line %q is %d columns wide, more than %d", l, w, MinWidth)
		}
	}
	if !strings.Contains(strings.Join(strings.Fields(out), " "), "deeply") {
		t.Errorf("the text is lost:\n%s", out)
	}
}

func BenchmarkRender(b *testing.B) {
	src, err := os.ReadFile(filepath.Join("testdata", "bench.md"))
	if err != nil {
		b.Fatal(err)
	}
	r := New(100, Dark)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		r.Render(string(src))
	}
}
