package search

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/reinsdev/reins/tool"
)

// withSpillThreshold sets spillThreshold for one test.
func withSpillThreshold(t testing.TB, n int64) {
	old := spillThreshold
	spillThreshold = n
	t.Cleanup(func() { spillThreshold = old })
}

// withSpillWindow sets spillWindow for one test.
func withSpillWindow(t testing.TB, n int64) {
	old := spillWindow
	spillWindow = n
	t.Cleanup(func() { spillWindow = old })
}

// withContentSinkLimit sets contentSinkLimit for one test.
func withContentSinkLimit(t testing.TB, n int) {
	old := contentSinkLimit
	contentSinkLimit = n
	t.Cleanup(func() { contentSinkLimit = old })
}

// fileText reads a result's text, from its file when it has one (and removes the file).
func fileText(t testing.TB, r tool.Result) string {
	t.Helper()
	in, err := r.Inline()
	if err != nil {
		t.Fatal(err)
	}
	return in.TextOf()
}

// TestSpilledOutputMatchesMemory renders random content results twice: held in memory, and
// spilled (a tiny threshold; a file in parts, each a result, as rg may print them) into a file sink
// that takes over past a tiny limit. The text must be the same, byte for byte.
func TestSpilledOutputMatchesMemory(t *testing.T) {
	dir := t.TempDir()
	toFile, spilled := 0, 0
	rapid.Check(t, func(rt *rapid.T) {
		withSpillThreshold(t, rapid.Int64Range(0, 300).Draw(rt, "threshold"))
		withSpillWindow(t, rapid.Int64Range(1, 400).Draw(rt, "window"))
		type file struct {
			rel   string
			parts [][]string // lines, in the parts they are finished in
		}
		var files []file
		line := rapid.StringMatching(`[a-zé€ :-]{0,20}`)
		for i := range rapid.IntRange(0, 8).Draw(rt, "files") {
			f := file{rel: fmt.Sprintf("d%d/f%d.go", i%3, i)}
			for range rapid.IntRange(1, 3).Draw(rt, "parts") {
				f.parts = append(f.parts, rapid.SliceOfN(line, 1, 6).Draw(rt, "lines"))
			}
			files = append(files, f)
		}
		// The order parts are finished in, across files: interleaved, so that a file's
		// parts are spilled apart or side by side.
		var steps []int
		for i, f := range files {
			for range f.parts {
				steps = append(steps, i)
			}
		}
		steps = rapid.Permutation(steps).Draw(rt, "steps")
		// Each part is a result of its own, finished when it is complete, as parseRg makes
		// them; the results come in the order of the steps, which render sorts.
		build := func(sp *spill) []*fileResult {
			var out []*fileResult
			next := make([]int, len(files))
			for _, i := range steps {
				f, pi := files[i], next[i]
				next[i]++
				r := &fileResult{rel: f.rel}
				if pi > 0 {
					r.addSep()
				}
				for li, l := range f.parts[pi] {
					r.addLine(f.rel, kindMatch, li+1, true, []byte(l))
					if li%2 == 1 {
						r.text = append(r.text, nil) // a new piece, as the arena starts one
					}
				}
				sp.done(r)
				out = append(out, r)
			}
			return out
		}
		before := rapid.IntRange(0, 1).Draw(rt, "context")
		var headLimit *int
		if rapid.Bool().Draw(rt, "has head_limit") {
			headLimit = new(rapid.IntRange(0, 20).Draw(rt, "head_limit"))
		}
		offset := rapid.IntRange(0, 10).Draw(rt, "offset")
		q := &query{mode: modeContent, lineNumbers: true, before: before}

		want, err := render(q, build(nil), "", headLimit, offset, nil)
		if err != nil {
			rt.Fatal(err)
		}

		sq := &query{mode: modeContent, lineNumbers: true, before: before, spill: &spill{}}
		defer sq.spill.close()
		limit := rapid.IntRange(0, 200).Draw(rt, "sink limit")
		withContentSinkLimit(t, limit)
		create := func() (*os.File, error) { return os.CreateTemp(dir, "out-*") }
		results := build(sq.spill)
		got, err := render(sq, results, "", headLimit, offset, create)
		if err != nil {
			rt.Fatal(err)
		}
		if sq.spill.f != nil {
			spilled++
		}
		text := renderedText(rt, got)
		if got.file != nil {
			toFile++
			if got.file.Size != int64(len(text)) || got.file.Chars != int64(utf8.RuneCountInString(text)) ||
				!strings.HasPrefix(text, got.file.Head) || len(got.file.Head) < min(len(text), tool.TextFileHead) {
				rt.Fatalf("file %+v does not describe its %d bytes", got.file, len(text))
			}
			if int64(len(want.text)) <= int64(limit) {
				rt.Fatalf("a %d-byte text went to a file past a limit of %d", len(want.text), limit)
			}
		}
		if text != want.text {
			rt.Fatalf("spilled output differs:\n%s", cmp.Diff(want.text, text))
		}
		if got.NumLines != want.NumLines || (got.AppliedLimit == nil) != (want.AppliedLimit == nil) {
			rt.Fatalf("output fields differ: %+v vs %+v", got.GrepOutput, want.GrepOutput)
		}
		if got.file == nil && got.Content != want.Content {
			rt.Fatalf("Content %q, want %q", got.Content, want.Content)
		}
	})
	if toFile == 0 || spilled == 0 {
		t.Errorf("%d renders went to a file and %d searches spilled: the property checked too little", toFile, spilled)
	}
}

// TestGrepResultFile runs Grep, with each engine, with and without a result file: a large
// output goes to the file, spilled on the way, and holds exactly the text held in memory.
func TestGrepResultFile(t *testing.T) {
	withSpillThreshold(t, 0)
	dir := t.TempDir()
	var files [][2]string
	for i := range 60 {
		var b strings.Builder
		for j := range 40 {
			fmt.Fprintf(&b, "line %d of file %d: needle é€ %s\n", j, i, strings.Repeat("x", j))
		}
		files = append(files, [2]string{fmt.Sprintf("p%d/f%02d.txt", i%7, i), b.String()})
	}
	writeTree(t, dir, files)
	engines := map[string]tool.Tool{"go": NewGrep(Options{})}
	if rg, err := exec.LookPath("rg"); err == nil {
		engines["rg"] = NewGrep(Options{Ripgrep: rg})
	}
	out := t.TempDir()
	for name, g := range engines {
		for _, input := range []string{
			`{"pattern":"needle","output_mode":"content","head_limit":0}`,
			`{"pattern":"needle","output_mode":"content","head_limit":0,"-C":1,"-n":false}`,
			`{"pattern":"file 1[0-9]:","output_mode":"content","head_limit":700,"offset":333,"-B":2}`,
			`{"pattern":"needle","output_mode":"content"}`,
			`{"pattern":"nothing matches this","output_mode":"content","head_limit":0}`,
		} {
			t.Run(name+" "+input, func(t *testing.T) {
				want := run(t, g, newEnv(t, dir), input)
				env := newEnv(t, dir)
				env.CreateResultFile = func() (*os.File, error) { return os.CreateTemp(out, "grep-*") }
				got := run(t, g, env, input)
				large := len(want.TextOf()) > 4*grepMaxResultChars
				if (got.TextFile != nil) != large {
					t.Fatalf("result file %v for a %d-byte text", got.TextFile, len(want.TextOf()))
				}
				if gotOut := got.Output.(GrepOutput); got.TextFile != nil && gotOut.Content != "" ||
					got.TextFile == nil && gotOut.Content != want.Output.(GrepOutput).Content {
					t.Errorf("structured Content %.80q with result file %v", gotOut.Content, got.TextFile != nil)
				}
				if diff := cmp.Diff(want.TextOf(), fileText(t, got)); diff != "" {
					t.Fatalf("text with a result file differs (-memory +file):\n%s", diff)
				}
				// Where no spill file can be made, the files' text stays in memory: the same text.
				t.Setenv("TMPDIR", filepath.Join(dir, "no such folder"))
				if diff := cmp.Diff(want.TextOf(), fileText(t, run(t, g, env, input))); diff != "" {
					t.Fatalf("text without a spill file differs (-memory +file):\n%s", diff)
				}
			})
		}
	}
	if left, _ := os.ReadDir(out); len(left) != 0 {
		t.Fatalf("result files left behind: %v", left)
	}
}

// A sink whose file cannot be made keeps the text in memory; an aborted one leaves no file.
func TestTextSinkFallbackAndAbort(t *testing.T) {
	text := strings.Repeat("line é\n", 100)
	w := &textSink{limit: 10, create: func() (*os.File, error) { return nil, os.ErrPermission }}
	w.WriteString(text)
	w.trimNewline()
	got, file, err := w.finish()
	if err != nil || file != nil || got != strings.TrimSuffix(text, "\n") {
		t.Fatalf("finish = %d bytes, %v, %v; want the text in memory", len(got), file, err)
	}

	dir := t.TempDir()
	w = &textSink{limit: 10, create: func() (*os.File, error) { return os.CreateTemp(dir, "out-*") }}
	w.WriteString(text)
	w.abort()
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("abort left %v", left)
	}
}

// TestCountCharsMatchesRuneStart checks the word-at-a-time count against the plain one, on
// bytes of every kind (ASCII, lead and continuation bytes, invalid ones) and at every
// alignment.
func TestCountCharsMatchesRuneStart(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		p := rapid.SliceOf(rapid.SampledFrom([]byte{'a', '\n', 0x7f, 0x80, 0xbf, 0xc3, 0xa9, 0xe2, 0xf0, 0xff, 0x40, 0x00})).Draw(rt, "p")
		want := int64(0)
		for _, c := range p {
			if utf8.RuneStart(c) {
				want++
			}
		}
		if got := countChars(p); got != want {
			rt.Fatalf("countChars(%x) = %d, want %d", p, got, want)
		}
	})
}

// TestRgPartsRenderAsOneFile gives the rg parser output in which files are printed in
// parts, interleaved with other files, and renders it (spilled or not, with or without
// context, paged): the text must be that of one result per file holding all its parts.
func TestRgPartsRenderAsOneFile(t *testing.T) {
	dir := t.TempDir()
	rapid.Check(t, func(rt *rapid.T) {
		withSpillThreshold(t, rapid.Int64Range(0, 200).Draw(rt, "threshold"))
		withSpillWindow(t, rapid.Int64Range(1, 300).Draw(rt, "window"))
		type part struct {
			rel   string
			lines []string
		}
		var parts []part
		// Up to 30 parts: more than 12, which slices.SortFunc sorts stably by insertion.
		for i := range rapid.IntRange(0, 10).Draw(rt, "files") {
			rel := fmt.Sprintf("d%d/f%d", i%2, i)
			for range rapid.IntRange(1, 3).Draw(rt, "parts") {
				parts = append(parts, part{rel, rapid.SliceOfN(rapid.StringMatching(`[a-z€ -]{0,8}`), 1, 4).Draw(rt, "lines")})
			}
		}
		// A random interleaving that keeps each file's parts in order.
		order := rapid.Permutation(parts).Draw(rt, "order")
		byFile := map[string][]part{}
		for _, p := range order {
			byFile[p.rel] = append(byFile[p.rel], p)
		}
		next := map[string]int{}
		var out strings.Builder
		for _, p := range order {
			p = byFile[p.rel][next[p.rel]]
			next[p.rel]++
			for i, l := range p.lines {
				if i > 0 && rapid.IntRange(0, 3).Draw(rt, "sep") == 0 {
					out.WriteString("--\n")
				}
				fmt.Fprintf(&out, "./%s\x00:%d\x00:%s\n", p.rel, i+1, l)
			}
			if rapid.Bool().Draw(rt, "sep after") {
				out.WriteString("--\n")
			}
		}
		q := &query{mode: modeContent, lineNumbers: true, before: rapid.IntRange(0, 1).Draw(rt, "context")}
		var headLimit *int
		if rapid.Bool().Draw(rt, "has head_limit") {
			headLimit = new(rapid.IntRange(0, 20).Draw(rt, "head_limit"))
		}
		offset := rapid.IntRange(0, 8).Draw(rt, "offset")

		var merged []*fileResult
		for rel, f := range wantRgContent(out.String(), true) {
			merged = append(merged, &fileResult{rel: rel, text: [][]byte{[]byte(f.text)}, lines: f.n})
		}
		want, err := render(q, merged, "", headLimit, offset, nil)
		if err != nil {
			rt.Fatal(err)
		}

		sq := &query{mode: q.mode, lineNumbers: true, before: q.before, spill: &spill{}}
		defer sq.spill.close()
		results, err := parseRg(bufio.NewReader(strings.NewReader(out.String())), sq)
		if err != nil {
			rt.Fatal(err)
		}
		withContentSinkLimit(t, rapid.IntRange(0, 200).Draw(rt, "sink limit"))
		got, err := render(sq, results, "", headLimit, offset, func() (*os.File, error) { return os.CreateTemp(dir, "out-*") })
		if err != nil {
			rt.Fatal(err)
		}
		text := renderedText(rt, got)
		if text != want.text || got.NumLines != want.NumLines {
			rt.Fatalf("parts render differently (%d lines, want %d):\n%s", got.NumLines, want.NumLines, cmp.Diff(want.text, text))
		}
	})
}

// renderedText is the text render gave: in memory, or in its file, which it then removes.
func renderedText(rt *rapid.T, got rendered) string {
	if got.file == nil {
		return got.text
	}
	b, err := os.ReadFile(got.file.Path)
	os.Remove(got.file.Path)
	if err != nil {
		rt.Fatal(err)
	}
	return string(b)
}
