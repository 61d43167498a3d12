package search

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// FuzzParseRg feeds arbitrary text to the rg output parser in every mode: it must return
// results or an error, never panic, and every result must name a file. Content output that
// parses must give each file the lines a plain reading of rg's format gives (see
// wantRgContent).
func FuzzParseRg(f *testing.F) {
	f.Add("a.txt\x00:1\x00:alpha\n--\na.txt\x00-2\x00-beta\n", 0, true)
	f.Add("a.txt\x00:alpha\nb.txt\x00-x\n", 0, false)
	f.Add("a.txt\x003\nb.txt\x001\n", 1, false)
	f.Add("a.txt\x00b.txt\x00", 2, false)
	f.Add("\x00\n--\n\x00:\x00:", 0, true)
	f.Add("b\x00:1\x00:x\na\x00:1\x00:y\nb\x00:3\x00:z\n--\nb\x00:5\x00:w\na\x00-2\x00-v\n", 0, true)
	f.Fuzz(func(t *testing.T, out string, mode int, numbers bool) {
		q := &query{mode: []outputMode{modeContent, modeCount, modeFiles}[(mode%3+3)%3], lineNumbers: numbers}
		results, err := parseRg(bufio.NewReader(strings.NewReader(out)), q)
		if err != nil {
			return
		}
		for _, r := range results {
			if r.rel == "" && q.mode == modeFiles {
				t.Fatalf("empty path from %q", out)
			}
		}
		if q.mode != modeContent {
			return
		}
		// A file printed in parts has a result for each part, in order: sorted stably by path,
		// as render sorts them, they make the file's text.
		type file struct {
			rel  string
			text string
			n    int
		}
		var files []file
		slices.SortStableFunc(results, byRel)
		for i, r := range results {
			if i == 0 || results[i-1].rel != r.rel {
				files = append(files, file{rel: r.rel})
			}
			f := &files[len(files)-1]
			f.text += string(bytes.Join(r.text, nil))
			f.n += r.lines
		}
		want := wantRgContent(out, numbers)
		if len(want) != len(files) {
			t.Fatalf("%q: %d files, want %d", out, len(files), len(want))
		}
		for _, f := range files {
			if w := want[f.rel]; f.text != w.text || f.n != w.n {
				t.Fatalf("%q: file %q has %q (%d lines), want %q (%d lines)", out, f.rel, f.text, f.n, w.text, w.n)
			}
		}
	})
}

// wantRgContent reads rg's content output (path NUL kind [number NUL kind] text) the plain
// way: what each file's stored text should be, "--" kept only between two lines of the
// same file.
func wantRgContent(out string, numbers bool) map[string]struct {
	text string
	n    int
} {
	files := map[string]struct {
		text string
		n    int
	}{}
	cur, sep := "", false
	lines := strings.Split(out, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for _, line := range lines {
		if line == "--" {
			sep = true
			continue
		}
		path, rest, _ := strings.Cut(line, "\x00")
		path = strings.TrimPrefix(path, "./")
		f := files[path]
		if sep && cur == path {
			f.text += "--\n"
			f.n++
		}
		sep, cur = false, path
		kind := rest[:1]
		if numbers {
			num, text, _ := strings.Cut(rest[1:], "\x00")
			f.text += path + kind + num + text + "\n"
		} else {
			f.text += path + rest + "\n"
		}
		f.n++
		files[path] = f
	}
	return files
}

// FuzzGitConfigExcludesFile checks the git config reader never panics and only returns
// values that appear in the file.
func FuzzGitConfigExcludesFile(f *testing.F) {
	f.Add("[core]\n\texcludesfile = ~/.gitignore_global\n")
	f.Add("[core]excludesFile=\"x\"\n[user]\nname=a")
	f.Add("[CORE]\nexcludesfile\n")
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, content string) {
		p := filepath.Join(dir, "config")
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if v := gitConfigExcludesFile(p); v != "" && !strings.Contains(content, v) {
			t.Fatalf("value %q not in %q", v, content)
		}
	})
}

// TestNapReaderPassesEverything writes random pieces into rg's pipe, as rg does, and reads
// them through napReader: what comes out is what went in, whether the reads found the pipe
// full or nearly empty.
func TestNapReaderPassesEverything(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		pieces := rapid.SliceOf(rapid.SliceOfN(rapid.Byte(), 0, 3000)).Draw(rt, "pieces")
		bufSize := rapid.IntRange(16, 1<<16).Draw(rt, "buffer")
		r, w, _, err := rgPipe()
		if err != nil {
			rt.Fatal(err)
		}
		defer r.Close()
		go func() {
			for _, p := range pieces {
				w.Write(p)
			}
			w.Close()
		}()
		got, err := io.ReadAll(bufio.NewReaderSize(&napReader{r: r}, bufSize))
		if err != nil {
			rt.Fatal(err)
		}
		if want := bytes.Join(pieces, nil); !bytes.Equal(got, want) {
			rt.Fatalf("read %d bytes, want %d", len(got), len(want))
		}
	})
}
