package search

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseRg feeds arbitrary text to the rg output parser in every mode: it must return
// results or an error, never panic, and every result must name a file.
func FuzzParseRg(f *testing.F) {
	f.Add("a.txt\x00:1\x00:alpha\n--\na.txt\x00-2\x00-beta\n", 0, true)
	f.Add("a.txt\x00:alpha\nb.txt\x00-x\n", 0, false)
	f.Add("a.txt\x003\nb.txt\x001\n", 1, false)
	f.Add("a.txt\x00b.txt\x00", 2, false)
	f.Add("\x00\n--\n\x00:\x00:", 0, true)
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
	})
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
