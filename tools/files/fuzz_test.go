package files

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

// chunkReader returns at most n bytes per Read, to put line ends at every buffer boundary.
type chunkReader struct {
	r io.Reader
	n int
}

func (c chunkReader) Read(p []byte) (int, error) {
	if len(p) > c.n {
		p = p[:c.n]
	}
	return c.r.Read(p)
}

// refScan is the obvious implementation scanLines must agree with.
func refScan(data []byte, start, limit int) (string, int, bool) {
	s := strings.TrimPrefix(string(data), "\uFEFF")
	var lines []string
	if s != "" {
		lines = strings.Split(s, "\n")
		if lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
	}
	start = max(start, 1)
	end := len(lines)
	if limit > 0 {
		end = min(end, start-1+limit)
	}
	var out []string
	for i := start - 1; i < end; i++ {
		out = append(out, fmt.Sprintf("%d\t%s", i+1, strings.TrimSuffix(lines[i], "\r")))
	}
	eof := limit == 0 || start-1+limit >= len(lines)
	return strings.Join(out, "\n"), len(lines), eof
}

func FuzzScanLines(f *testing.F) {
	f.Add([]byte("a\nb\r\nc"), uint8(1), uint8(0), uint8(1))
	f.Add([]byte("\uFEFFx\n\ny\n"), uint8(2), uint8(1), uint8(3))
	f.Add([]byte(""), uint8(3), uint8(2), uint8(7))
	f.Add([]byte("\r\n\r\n\n"), uint8(0), uint8(5), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, start, limit, chunk uint8) {
		s, err := scanLines(chunkReader{bytes.NewReader(data), int(chunk%16) + 1}, int(start), int(limit), 1<<20, int64(len(data)%3)*int64(chunk))
		if err != nil {
			t.Fatal(err)
		}
		want, total, eof := refScan(data, int(start), int(limit))
		if string(s.text) != want {
			t.Fatalf("text %q, want %q", s.text, want)
		}
		if s.eof != eof || (eof && s.total != total) {
			t.Fatalf("eof %v total %d, want %v %d", s.eof, s.total, eof, total)
		}
	})
}

func FuzzUTF16LEReader(f *testing.F) {
	f.Add([]byte("h\x00i\x00"), uint8(1))
	f.Add([]byte("=\xd8\x00\xde"), uint8(3)) // a surrogate pair
	f.Add([]byte("\x00\xd8a"), uint8(2))     // a lone surrogate and an odd byte
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8) {
		got, err := io.ReadAll(newUTF16LEReader(chunkReader{bytes.NewReader(data), int(chunk%8) + 1}))
		if err != nil {
			t.Fatal(err)
		}
		if want := decodeUTF16LE(data); string(got) != want {
			t.Fatalf("streamed %q, whole %q", got, want)
		}
		if !utf8.Valid(got) {
			t.Fatal("invalid UTF-8")
		}
	})
}

func FuzzFindActualString(f *testing.F) {
	f.Add("say “hi” and ‘bye’", `"hi"`)
	f.Add("it’s", "it's")
	f.Add("abc", "")
	f.Fuzz(func(t *testing.T, content, search string) {
		got := findActualString(content, search)
		if got == "" {
			if search != "" && strings.Contains(normalizeQuotes(content), normalizeQuotes(search)) && utf8.ValidString(content) && utf8.ValidString(search) {
				t.Fatalf("missed %q in %q", search, content)
			}
			return
		}
		if !strings.Contains(content, got) || normalizeQuotes(got) != normalizeQuotes(search) {
			t.Fatalf("found %q for %q in %q", got, search, content)
		}
		_ = preserveQuoteStyle(got, search)
	})
}

func FuzzNotebook(f *testing.F) {
	f.Add([]byte(testNotebook), "calc", "x = 1", "code", "replace")
	f.Add([]byte(`{"cells":[{"cell_type":"code","source":["a"],"outputs":[{"output_type":"error","ename":"E","evalue":"v","traceback":["t"]}]}]}`), "cell-0", "b", "markdown", "insert")
	f.Add([]byte(`{"cells":null}`), "", "", "", "delete")
	f.Add([]byte(`{"cells":[1,"x",null]}`), "cell-1", "", "", "delete")
	f.Fuzz(func(t *testing.T, raw []byte, cellID, source, cellType, mode string) {
		nb, err := parseNotebook(raw)
		if err != nil {
			return
		}
		_ = renderNotebook(nb, "/x.ipynb")
		if mode != "replace" && mode != "insert" && mode != "delete" || mode == "insert" && cellType == "" {
			return // refused before the edit is applied
		}
		before := len(nb.cells())
		_, out, fail := applyNotebookEdit(nb, NotebookEditInput{CellID: cellID, NewSource: source, CellType: cellType, EditMode: mode})
		if fail != nil {
			return
		}
		after := len(nb.cells())
		switch out.EditMode {
		case "insert":
			if after != before+1 {
				t.Fatalf("insert: %d cells became %d", before, after)
			}
		case "delete":
			if after != before-1 {
				t.Fatalf("delete: %d cells became %d", before, after)
			}
		default:
			if after != before {
				t.Fatalf("replace: %d cells became %d", before, after)
			}
		}
		b, err := nb.marshal()
		if err != nil {
			t.Fatal(err)
		}
		var back map[string]any
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("edit produced invalid JSON: %v", err)
		}
	})
}

// TestScanLinesSizeIsOnlyAHint: a size smaller than the data (a file that grew after it was
// measured) changes the read size, never the result.
func TestScanLinesSizeIsOnlyAHint(t *testing.T) {
	var b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&b, "line %d %s\r\n", i, strings.Repeat("x", i%17))
	}
	b.WriteString(strings.Repeat("long", 5000)) // a last line longer than the small buffer
	data := []byte(b.String())
	want, err := scanLines(bytes.NewReader(data), 2, 0, 1<<22, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []int64{1, 100, 4095, int64(len(data)) - 1, int64(len(data)), 10 * int64(len(data))} {
		got, err := scanLines(bytes.NewReader(data), 2, 0, 1<<22, size)
		if err != nil {
			t.Fatal(err)
		}
		if string(got.text) != string(want.text) || got.lines != want.lines || got.eof != want.eof || got.bytes != want.bytes {
			t.Errorf("size %d: %d lines, %d bytes, eof %v; want %d, %d, %v", size, got.lines, got.bytes, got.eof, want.lines, want.bytes, want.eof)
		}
	}
}
