package search

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseGlob(t *testing.T) {
	tests := []struct {
		pattern string
		path    string
		isDir   bool
		want    bool
	}{
		{"*.log", "a.log", false, true},
		{"*.log", "x/y/a.log", false, true},
		{"*.log", "a.log/x", false, false},
		{"build/", "build", true, true},
		{"build/", "build", false, false},
		{"build/", "x/build", true, true},
		{"/anchored", "anchored", false, true},
		{"/anchored", "x/anchored", false, false},
		{"a/b", "a/b", false, true},
		{"a/b", "x/a/b", false, false},
		{"**/foo", "foo", false, true},
		{"**/foo", "a/b/foo", false, true},
		{"a/**", "a/x/y", false, true},
		{"a/**/b", "a/b", false, true},
		{"a/**/b", "a/x/y/b", false, true},
		{"a/**/b", "ab", false, false},
		{"f?o", "foo", false, true},
		{"f?o", "f/o", false, false},
		{"[abc].txt", "b.txt", false, true},
		{"[!abc].txt", "d.txt", false, true},
		{"[!abc].txt", "a.txt", false, false},
		{"[a-c]x", "bx", false, true},
		{"[[:digit:]]x", "7x", false, true},
		{"*.{go,rs}", "m.rs", false, true},
		{"*.{go,rs}", "m.py", false, false},
		{`\#lit`, "#lit", false, true},
		{`\!bang`, "!bang", false, true},
		{`space\ `, "space ", false, true},
		{"trail   ", "trail", false, true},
		{"a*b", "a/b", false, false},
		{"a**b", "axxb", false, true},
		{"[unterminated", "[unterminated", false, true},
		{"Makefile", "sub/Makefile", false, true},
		{"*Dockerfile*", "x.Dockerfile.dev", false, true},
	}
	for _, tt := range tests {
		p, err := parseGlob(tt.pattern)
		if err != nil {
			t.Errorf("parseGlob(%q): %v", tt.pattern, err)
			continue
		}
		if got := p.match(tt.path, tt.isDir); got != tt.want {
			t.Errorf("%q matches %q (dir %v) = %v, want %v", tt.pattern, tt.path, tt.isDir, got, tt.want)
		}
	}
	for _, skip := range []string{"", "# comment", "   ", "!", "/"} {
		if _, err := parseGlob(skip); err != errSkipLine {
			t.Errorf("parseGlob(%q) = %v, want errSkipLine", skip, err)
		}
	}
	if p, err := parseGlob("!keep.log"); err != nil || !p.negate {
		t.Errorf("negation not parsed: %+v %v", p, err)
	}
}

func TestGitConfigExcludesFile(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, [][2]string{{"cfg", "[user]\n\tname = x\n[core]\n\texcludesfile = ~/my-ignore\n[other]\n\texcludesfile = wrong\n"}})
	if got := gitConfigExcludesFile(dir + "/cfg"); got != "~/my-ignore" {
		t.Errorf("got %q", got)
	}
}

// FuzzParseGlob checks that any line compiles or is refused without panicking, and that the
// literal and suffix fast paths agree with the general regexp translation.
func FuzzParseGlob(f *testing.F) {
	for _, s := range []string{"*.log", "build/", "/a/b", "**/x", "a/**/b", "[!a-c]?", `\#x`, "*.{a,b}", "!neg", "x\\ ", "[[:alpha:]]"} {
		f.Add(s, "a/b.log", false)
	}
	f.Fuzz(func(t *testing.T, pattern, path string, isDir bool) {
		p, err := parseGlob(pattern)
		if err != nil {
			return
		}
		rel := strings.Trim(path, "/")
		if rel == "" {
			return
		}
		got := p.match(rel, isDir)
		if (p.literal == "" && p.suffix == "") || !utf8.ValidString(pattern) {
			return // no fast path, or a byte pattern regexp cannot express
		}
		body := p.literal
		if p.suffix != "" {
			body = "*" + p.suffix
		}
		reBody, err := globToRegexp(body)
		if err != nil {
			t.Fatalf("fast-path pattern %q does not translate: %v", body, err)
		}
		re := regexp.MustCompile("^(?:.*/)?" + reBody + "$")
		want := re.MatchString(rel) && (!p.dirOnly || isDir)
		if got != want {
			t.Errorf("pattern %q on %q: fast path %v, regexp %v", pattern, rel, got, want)
		}
	})
}

// FuzzMatchLines checks the skip-ahead search against the obvious one: every line matched on
// its own.
func FuzzMatchLines(f *testing.F) {
	f.Add("alpha", "alpha\nbeta\n", false)
	f.Add(`a\sb`, "a\nb a b\n", false)
	f.Add("^$", "\n\nx\n", false)
	f.Add("", "a\nb", false)
	f.Add("x*", "", false)
	f.Add("AB", "ab\nxAbx\n", true)
	f.Add("$", "a\r\nb", false)
	f.Fuzz(func(t *testing.T, pattern, content string, ignoreCase bool) {
		if validatePattern(pattern, ignoreCase, false) != nil {
			return
		}
		m, err := compileMatcher(pattern, ignoreCase, false)
		if err != nil {
			t.Fatalf("validated pattern %q does not compile: %v", pattern, err)
		}
		buf := []byte(content)
		var got []string
		for _, s := range m.search(buf, wantLines).spans {
			got = append(got, content[s.start:s.end])
		}
		var want []string
		lines := bytes.SplitAfter(buf, []byte("\n"))
		for _, l := range lines {
			if len(l) == 0 {
				continue
			}
			l = bytes.TrimSuffix(l, []byte("\n"))
			if m.re.Match(l) {
				want = append(want, string(l))
			}
		}
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") || len(got) != len(want) {
			t.Errorf("pattern %q (i=%v) on %q: got lines %q, want %q", pattern, ignoreCase, content, got, want)
		}
	})
}

func TestFoldIndex(t *testing.T) {
	for _, tt := range []struct {
		s, needle string
		want      int
	}{
		{"hello WORLD", "world", 6},
		{"xxYyyYYy", "yy", 2},
		{"abc", "abcd", -1},
		{"ABCabc", "cab", 2},
		{"..--..", "-.", 3},
		{"", "a", -1},
		{"aAaA", "aa", 0},
		{"zzzZ", "z", 0},
		{"xxxX", "xx", 0},
		{"y yY", "yy", 2},
	} {
		if got := rareFoldIndex([]byte(tt.s), []byte(tt.needle), rarest([]byte(tt.needle), true)); got != tt.want {
			t.Errorf("rareFoldIndex(%q, %q) = %d, want %d", tt.s, tt.needle, got, tt.want)
		}
	}
}
