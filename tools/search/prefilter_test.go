package search

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// plainSpans is the obvious search the prefiltered one must agree with: the regexp run on
// every line on its own.
func plainSpans(m *matcher, buf []byte) []span {
	var out []span
	for pos := 0; pos < len(buf); {
		le := lineEnd(buf, pos)
		if m.re.Match(buf[pos:le]) {
			out = append(out, span{pos, le})
		}
		pos = le + 1
	}
	return out
}

// TestPrefilterAgreesWithPlain draws lines and patterns rich in the required-literal and
// tail cases (Error, Errorf, \b after the literal, case folding) and requires the search —
// rarest-byte literal scan, candidate lines, anchored tail check, first-match stop — to find
// exactly the lines the plain search finds.
func TestPrefilterAgreesWithPlain(t *testing.T) {
	tails := 0
	rapid.Check(t, func(rt *rapid.T) {
		word := rapid.SampledFrom([]string{"Error", "Errorf", "error", "ERROR", "Foo", "x", " ", "(", "ctx", "_", "\t", "Ab", "rr", "fooError"})
		line := rapid.Custom(func(rt *rapid.T) string {
			return strings.Join(rapid.SliceOfN(word, 0, 6).Draw(rt, "words"), "")
		})
		content := strings.Join(rapid.SliceOfN(line, 0, 10).Draw(rt, "lines"), "\n")
		if rapid.Bool().Draw(rt, "eol") {
			content += "\n"
		}
		piece := rapid.SampledFrom([]string{`[A-Z][a-z]+`, `Error`, `\b`, `\w+`, `x`, `(?i:error)`, `f?`, `\(`, `ctx`, `[^x]`, `\s`, `.`, `(Error|Foo)`, `E(rr)or`, `^`, `$`, `rr+`, `o`, `\B`})
		pattern := strings.Join(rapid.SliceOfN(piece, 1, 4).Draw(rt, "pattern"), "")
		ignoreCase := rapid.Bool().Draw(rt, "-i")
		if validatePattern(pattern, ignoreCase, false) != nil {
			return
		}
		m, err := compileMatcher(pattern, ignoreCase, false)
		if err != nil {
			rt.Fatalf("%q: %v", pattern, err)
		}
		if m.tail != nil {
			tails++
		}
		buf := []byte(content)
		want := plainSpans(m, buf)
		got := m.search(buf, wantLines)
		if fmt.Sprint(got.spans) != fmt.Sprint(want) || got.count != len(want) {
			rt.Fatalf("pattern %q (-i %v) on %q: got %v (count %d), want %v", pattern, ignoreCase, content, got.spans, got.count, want)
		}
		if c := m.search(buf, wantCount); c.count != len(want) || len(c.spans) != 0 {
			rt.Fatalf("pattern %q (-i %v) on %q: count %d with %d spans, want %d and none", pattern, ignoreCase, content, c.count, len(c.spans), len(want))
		}
		first := m.search(buf, wantFirst)
		if len(want) > 0 && (len(first.spans) != 1 || first.spans[0] != want[0]) || len(want) == 0 && len(first.spans) != 0 {
			rt.Fatalf("pattern %q (-i %v) on %q: first match %v, want the first of %v", pattern, ignoreCase, content, first.spans, want)
		}
	})
	if tails == 0 {
		t.Error("no drawn pattern had a tail check: the test does not exercise it")
	}
}

// TestParallelEngineMatchesSequential runs the Go engine with one worker and with several on
// random trees and requires the same output, byte for byte, in every mode.
func TestParallelEngineMatchesSequential(t *testing.T) {
	getenv := isolatedEnv(t)
	one, many := NewGrep(Options{Workers: 1, Getenv: getenv}), NewGrep(Options{Workers: 4, Getenv: getenv})
	rapid.Check(t, func(rt *rapid.T) {
		dir, err := os.MkdirTemp(t.TempDir(), "tree")
		if err != nil {
			rt.Fatal(err)
		}
		var files [][2]string
		line := rapid.StringMatching(`(Error|Errorf|ab|x| |\(){0,5}`)
		for i := range rapid.IntRange(1, 60).Draw(rt, "files") {
			name := fmt.Sprintf("d%d/s%d/f%d.txt", i%3, i%5, i)
			files = append(files, [2]string{name, strings.Join(rapid.SliceOfN(line, 0, 20).Draw(rt, "lines"), "\n")})
		}
		writeTree(t, dir, files)
		pattern := rapid.SampledFrom([]string{`[A-Z][a-z]+Error\b`, `Error`, `ab`, `x\s*\(`, `(?i)errorf`, `^$`, `b x`}).Draw(rt, "pattern")
		mode := rapid.SampledFrom([]string{"files_with_matches", "content", "count"}).Draw(rt, "mode")
		input := fmt.Sprintf(`{"pattern":%q,"output_mode":%q,"head_limit":0,"-C":%d}`, pattern, mode, rapid.IntRange(0, 2).Draw(rt, "-C"))
		env := newEnv(t, dir)
		a, b := run(t, one, env, input), run(t, many, env, input)
		if a.TextOf() != b.TextOf() {
			rt.Fatalf("%s\none worker:\n%s\nfour:\n%s", input, a.TextOf(), b.TextOf())
		}
	})
}

// FuzzRequiredLiteral checks the literal and tail a pattern's search relies on: on any line the
// pattern matches, the required literal occurs and the tail matches at one of its
// occurrences.
func FuzzRequiredLiteral(f *testing.F) {
	f.Add(`[A-Z][a-z]+Error\b`, "return &TimeoutError{}", false)
	f.Add(`[A-Z][a-z]+Error\b`, `fmt.Errorf("x") ParseError`, false)
	f.Add(`func \w+\(ctx context\.Context`, "func Run(ctx context.Context) {", false)
	f.Add(`a(bc)+d`, "xabcbcd", true)
	f.Add(`x\bERROR\b`, "x ERROR", true)
	f.Add(`\w+ERROR$`, "fooerror", true)
	f.Fuzz(func(t *testing.T, pattern, line string, ignoreCase bool) {
		if strings.Contains(line, "\n") || validatePattern(pattern, ignoreCase, false) != nil {
			return
		}
		m, err := compileMatcher(pattern, ignoreCase, false)
		if err != nil {
			t.Fatalf("validated pattern %q does not compile: %v", pattern, err)
		}
		buf := []byte(line)
		if !m.re.Match(buf) || m.req == nil {
			return
		}
		i := m.indexReq(buf, 0)
		if i < 0 {
			t.Fatalf("pattern %q matches %q, which lacks its required literal %q (fold %v)", pattern, line, m.req, m.reqFold)
		}
		if m.tail != nil && !m.tailMatches(buf, i, len(buf)) {
			t.Fatalf("pattern %q matches %q, but its tail %v matches at no occurrence of %q", pattern, line, m.tail, m.req)
		}
		if !m.reqFold && !bytes.Contains(buf, m.req) {
			t.Fatalf("indexReq found %q in %q where it is not", m.req, line)
		}
	})
}

// TestRenderContentPages compares the content page, built from the results' text, with the
// obvious build: every line formatted, the list paginated, the page joined.
func TestRenderContentPages(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		q := &query{mode: modeContent, lineNumbers: rapid.Bool().Draw(rt, "-n"), before: rapid.IntRange(0, 1).Draw(rt, "-B")}
		if rapid.Bool().Draw(rt, "single file") {
			q.file = "f"
		}
		var arena lineArena
		var results []*fileResult
		var all []string
		for i := range rapid.IntRange(0, 5).Draw(rt, "files") {
			r := &fileResult{rel: fmt.Sprintf("d/f%d", i)}
			prefix := q.linePrefix(r.rel)
			if q.context() && i > 0 {
				all = append(all, "--")
			}
			useArena := rapid.Bool().Draw(rt, "arena") // as the rg engine stores lines
			for j := range rapid.IntRange(1, 6).Draw(rt, "lines") {
				if j > 0 && rapid.IntRange(0, 4).Draw(rt, "sep") == 0 {
					if useArena {
						copy(arena.extend(r, 3), "--\n")
						r.lines++
					} else {
						r.addSep()
					}
					all = append(all, "--")
					continue
				}
				kind := rapid.SampledFrom([]lineKind{kindMatch, kindContext}).Draw(rt, "kind")
				text := rapid.StringMatching(`[a-z:\- ]{0,6}`).Draw(rt, "text")
				want := ""
				if q.file == "" {
					want = r.rel + string(kind)
				}
				if q.lineNumbers {
					want += fmt.Sprint(j+1) + string(kind)
				}
				want += text
				if useArena {
					dst := arena.extend(r, len(want)+1)
					dst[copy(dst, want)] = '\n'
					r.lines++
				} else {
					r.addLine(prefix, kind, j+1, q.lineNumbers, []byte(text))
				}
				all = append(all, want)
			}
			results = append(results, r)
		}
		var headLimit *int
		if rapid.Bool().Draw(rt, "has head_limit") {
			headLimit = new(int)
			*headLimit = rapid.IntRange(0, 12).Draw(rt, "head_limit")
		}
		offset := rapid.IntRange(0, 14).Draw(rt, "offset")
		got, n, limit := renderContent(q, results, headLimit, offset)
		page, wantLimit := paginate(all, headLimit, offset)
		if want := strings.Join(page, "\n"); got != want || n != len(page) {
			rt.Fatalf("got %q (%d lines), want %q (%d lines)", got, n, want, len(page))
		}
		if (limit == nil) != (wantLimit == nil) || limit != nil && *limit != *wantLimit {
			rt.Fatalf("applied limit %v, want %v", limit, wantLimit)
		}
	})
}
