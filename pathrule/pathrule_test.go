package pathrule

import (
	"fmt"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

type matchCase struct {
	pattern string
	rel     string
	isDir   bool
	want    bool
}

func (c matchCase) name() string {
	kind := "file"
	if c.isDir {
		kind = "dir"
	}
	return fmt.Sprintf("%q~%q(%s)", c.pattern, c.rel, kind)
}

const (
	file = false
	dir  = true
)

var matchCases = []matchCase{
	// gitignore-style matching: anchoring, directory patterns, globs and case folding.
	{"*.env", "a/b/c.env", file, true},
	{"/secrets/*", "secrets/x", file, true},
	{"build/", "a/build", dir, true},
	{"a?c", "abc", file, true},
	{"*.{js,ts}", "a.ts", file, false}, // no brace expansion in gitignore
	{"*.{js,ts}", "a.{js,ts}", file, true},
	{".env*", "x/.env.local", file, true},
	{"src/**", "src", dir, true},
	{"*.ENV", "a/x.env", file, true}, // go-git says false: it is case-sensitive
	{"/x", "x", file, true},
	{"/x", "sub/x", file, false},

	// No slash but a trailing one: match the name at any depth.
	{"*.env", "c.env", file, true},
	{"*.env", "a/b/c.envx", file, false},
	{"*.env", "a/b.env/c", file, true}, // a directory named b.env
	{"build", "build", file, true},
	{"build", "a/build", file, true},
	{"build", "a/build/x/y", file, true},
	{"build", "a/builder", file, false},
	{"build", "a/xbuild/y", file, false},
	{"build", "", dir, false},

	// A slash at the start or in the middle anchors at the base.
	{"a/b", "a/b", file, true},
	{"a/b", "a/b/c", file, true},
	{"a/b", "x/a/b", file, false},
	{"a/b", "a", dir, false},
	{"a/b", "a/bc", file, false},
	{"/a", "a", dir, true},
	{"/a", "a/z/y", file, true},
	{"/a", "x/a", file, false},
	{"/a/b/", "a/b", dir, true},
	{"/a/b/", "a/b", file, false},

	// Directory matches cover everything beneath.
	{"secrets", "secrets/x/y", file, true},
	{"/secrets", "secrets/x/y", file, true},
	{"secrets", "secretsx/y", file, false},

	// A trailing "/**" is dropped, so "dir/**" is "dir": it matches dir
	// itself, and (no slash left) at any depth — Claude Code v2.1.88.
	{"src/**", "src", file, true},
	{"src/**", "src/a", file, true},
	{"src/**", "src/a/b.go", file, true},
	{"src/**", "lib/src/a.go", file, true},
	{"src/**", "srcx/a.go", file, false},
	{"/src/**", "src", dir, true},
	{"/src/**", "src/a/b", file, true},
	{"/src/**", "lib/src/a", file, false},
	{"a/src/**", "a/src", dir, true},
	{"a/src/**", "a/src/x", file, true},
	{"a/src/**", "b/a/src/x", file, false},
	{"/**", "", dir, true},
	{"/**", "a/b", file, true},
	{"**", "", dir, true},
	{"**", "x", file, true},
	{"**", "a/b/c", file, true},
	{"**/**", "a/b/c", file, true},
	{"**/**", "", dir, true},

	// Trailing "/": directories only, and what is inside them.
	{"build/", "build", dir, true},
	{"build/", "build", file, false},
	{"build/", "a/build", file, false},
	{"build/", "a/build/x", file, true},
	{"build/", "a/build/x/y", dir, true},
	{"*/", "a", file, false},
	{"*/", "a", dir, true},
	{"*/", "a/b", file, true},

	// "*" stays within one element, "?" is one character but not "/".
	{"a/*.go", "a/x.go", file, true},
	{"a/*.go", "a/b/x.go", file, false},
	{"a/*", "a/b/c", file, true},
	{"a/*", "a", dir, false},
	{"*", "anything/at/all", file, true},
	{"*", "", dir, false},
	{"a*b", "ab", file, true},
	{"a*b", "axxb", file, true},
	{"a*b", "a/b", file, false},
	{"a*b*c", "aXbYbZc", file, true},
	{"a*b*c", "aXbYbZcd", file, false},
	{"*a*", "banana", file, true},
	{"a?b", "a/b", file, false},
	{"a?b", "ab", file, false},
	{"a??", "abc", file, true},
	{"?", "é", file, true}, // one rune, not one byte
	{"caf?", "café", file, true},
	{"???", "xé", file, false},
	{"/a/*/c", "a/b/c", file, true},
	{"/a/*/c", "a/b/x/c", file, false},
	{"*.tar.gz", "x.tar.gz", file, true},
	{"*.tar.gz", "x.gz", file, false},
	{"foo*", "food/x", file, true},
	{"foo*", "a/fo", file, false},
	{"a***b", "axyb", file, true},   // not a whole element: just "*"
	{"a/**b", "a/x/b", file, false}, // ditto
	{"a/**b", "a/xb", file, true},

	// Character classes.
	{"[abc].txt", "b.txt", file, true},
	{"[abc].txt", "d.txt", file, false},
	{"[!abc].txt", "d.txt", file, true},
	{"[!abc].txt", "a.txt", file, false},
	{"[^abc].txt", "d.txt", file, true},
	{"[^abc].txt", "c.txt", file, false},
	{"[a-c]x", "bx", file, true},
	{"[a-c]x", "dx", file, false},
	{"[A-C]x", "bX", file, true},
	{"[a-c]x", "BX", file, true},
	{"[!a-c]x", "BX", file, false},
	{"[]]", "]", file, true},
	{"[]a]", "a", file, true},
	{"[!]]", "]", file, false},
	{"[!]]", "x", file, true},
	{"[a-]", "-", file, true},
	{"[-a]", "-", file, true},
	{"[a-c-e]", "-", file, true},
	{"[a-c-e]", "d", file, false},
	{`[\]]`, "]", file, true},
	{`[a\-c]`, "b", file, false},
	{`[a\-c]`, "-", file, true},
	{"[[:digit:]]x", "7x", file, true},
	{"[[:digit:]]x", "ax", file, false},
	{"[[:upper:]]", "q", file, true}, // folding: q's orbit holds Q
	{"[[:alpha:][:digit:]]", "_", file, false},
	{"[![:alpha:]]", "_", file, true},
	{"[[:space:]]", " ", file, true},
	{"[[:punct:]]", "!", file, true},
	{"[[:xdigit:]]", "F", file, true},
	{"[[:xdigit:]]", "g", file, false},
	{"[[:]", ":", file, true}, // "[:" without ":]": a literal "["
	{"[[:]", "[", file, true},
	{"[é-ë]", "ê", file, true},
	{"[é-ë]", "Ê", file, true},
	{"x[/]y", "x/y", file, false}, // a class never matches "/"
	{"a[x/]b", "axb", file, true}, // "/" in a class anchors the pattern
	{"a[x/]b", "d/axb", file, false},

	// "**" as a whole element.
	{"**/foo", "foo", file, true},
	{"**/foo", "a/foo", file, true},
	{"**/foo", "a/b/foo", file, true},
	{"**/foo", "a/b/foo/c", file, true},
	{"**/foo", "a/xfoo", file, false},
	{"**/foo/bar", "foo/bar", file, true},
	{"**/foo/bar", "x/foo/bar", file, true},
	{"**/foo/bar", "x/foo/baz", file, false},
	{"a/**/b", "a/b", file, true},
	{"a/**/b", "a/x/b", file, true},
	{"a/**/b", "a/x/y/b", file, true},
	{"a/**/b", "a/xb", file, false},
	{"a/**/b", "x/a/b", file, false},
	{"a/**/b/**/c", "a/b/c", file, true},
	{"a/**/b/**/c", "a/x/b/y/z/c", file, true},
	{"a/**/b/**/c", "a/x/b/y/z/d", file, false},
	{"a/**/b/c", "a/b/x/b/c", file, true},
	{"a/**/**/b", "a/b", file, true},
	{"a/**/", "a", dir, false},
	{"a/**/", "a/b", dir, true},
	{"a/**/", "a/b", file, false},
	{"a/**/", "a/b/c", file, true},
	{"**/*.go", "x.go", file, true},
	{"**/*.go", "a/b/x.go", file, true},
	{"**/b/", "a/b", file, false},
	{"**/b/", "a/b", dir, true},
	{"**/b/", "a/b/c", file, true},
	{"/**/b/", "a/b/c", file, true},
	{"a/**/b/", "a/x/b", file, false},
	{"a/**/b/", "a/x/b/b", file, true},

	// Escapes and spaces.
	{`\*.txt`, "*.txt", file, true},
	{`\*.txt`, "a.txt", file, false},
	{`\?`, "?", file, true},
	{`\?`, "a", file, false},
	{`\[a]`, "[a]", file, true},
	{`\#x`, "#x", file, true},
	{`\!x`, "!x", file, true},
	{`a\b`, "ab", file, true},
	{`a\\b`, `a\b`, file, true},
	{"a  ", "a", file, true},
	{"a  ", "a ", file, false},
	{`a\ `, "a ", file, true},
	{`a\  `, "a ", file, true},
	{`a\ `, "a", file, false},
	{" a", " a", file, true},
	{" a", "a", file, false},
	{"a b", "x/a b", file, true},
	{"src/** ", "x/src", dir, true},
	{"a /**", "a", dir, true},
	{`a\ /**`, "a ", dir, true},
	{`a\/b`, "a/b", file, true},
	{`a\/b`, "x/a/b", file, false},
	{`\/a`, "a", file, true},

	// Case folding is Unicode simple folding, both ways.
	{"SECRETS", "x/secrets/y", file, true},
	{"/Src/Main.GO", "src/main.go", file, true},
	{"*.Go", "A.gO", file, true},
	{"ärger", "ÄRGER", file, true},
	{"ΣΊΣΥΦΟΣ", "σίσυφος", file, true},
	{"ΣΊΣΥΦΟΣ", "σίσυφοσ", file, true},
	{"\u212a.txt", "k.txt", file, true}, // KELVIN SIGN folds to k
	{"k.txt", "\u212a.txt", file, true},
	{"*s", "\u017f", file, true}, // LATIN SMALL LETTER LONG S folds to s
	{"İ", "i", file, false},      // no simple folding between them
	{"ß", "ss", file, false},     // simple folding only

	// Bytes that are not UTF-8 match only themselves.
	{"\xff", "\xff", file, true},
	{"\xff", "\xfe", file, false},
	{"\xff", "\ufffd", file, false},
	{"\ufffd", "\xff", file, false},
	{"?", "\xff", file, true},
	{"*\xff", "a\xff", file, true},
	{"[\xff]", "\xff", file, true},

	// The base itself: only "everything" patterns.
	{"a", "", dir, false},
	{"/a", "", dir, false},
	{"**", ".", dir, true},
	{"**/", "", dir, true},
	{"**/", "", file, false},
}

func TestMatch(t *testing.T) {
	for _, c := range matchCases {
		t.Run(c.name(), func(t *testing.T) {
			p, err := Compile(c.pattern)
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			if got := p.Match(c.rel, c.isDir); got != c.want {
				t.Errorf("Match = %v, want %v", got, c.want)
			}
			// The naive model must agree, so that fuzzing it is meaningful.
			if got, valid := refMatch(c.pattern, c.rel, c.isDir); !valid || got != c.want {
				t.Errorf("refMatch = %v (valid %v), want %v", got, valid, c.want)
			}
		})
	}
}

func TestCompileErrors(t *testing.T) {
	for _, pattern := range []string{
		"",
		"   ",
		"/",
		"//",
		"#comment",
		"!negated",
		"a\nb",
		"a\r",
		`a\`,
		`a/b\`,
		`a\/`, // "a/" after unescaping... then "a" dir-only; see below
		"a[b",
		"[",
		"[!",
		"[]",
		"[a-",
		`[\`,
		"[[:alpha:]",
		"[[:nope:]]",
		"[[::]]",
	} {
		t.Run(fmt.Sprintf("%q", pattern), func(t *testing.T) {
			p, err := Compile(pattern)
			if pattern == `a\/` {
				// An escaped slash is a plain slash, so this is "a/".
				if err != nil || !p.Match("a", true) || p.Match("a", false) {
					t.Fatalf(`Compile(%q) should behave as "a/": %v`, pattern, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Compile succeeded, want an error")
			}
			if !strings.Contains(err.Error(), fmt.Sprintf("%q", pattern)) {
				t.Errorf("error %q does not quote the pattern", err)
			}
		})
	}
}

func TestString(t *testing.T) {
	for _, s := range []string{"src/**", "*.env  ", `\#x`, "/a/b/"} {
		p, err := Compile(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.String(); got != s {
			t.Errorf("String() = %q, want %q", got, s)
		}
	}
}

// Many globstars must not make matching exponential.
func TestManyGlobstars(t *testing.T) {
	pattern := strings.Repeat("**/a/", 30) + "b"
	p, err := Compile(pattern)
	if err != nil {
		t.Fatal(err)
	}
	rel := strings.Repeat("a/", 200) + "c"
	if p.Match(rel, false) {
		t.Errorf("Match = true, want false")
	}
	if !p.Match(strings.Repeat("a/", 200)+"b", false) {
		t.Errorf("Match = false, want true")
	}
	q, err := Compile(strings.Repeat("*a", 30) + "*b")
	if err != nil {
		t.Fatal(err)
	}
	if q.Match(strings.Repeat("a", 1000), false) {
		t.Errorf("star pattern: Match = true, want false")
	}
}

func TestMatchDoesNotAllocate(t *testing.T) {
	var ps []*Pattern
	for _, c := range matchCases {
		p, err := Compile(c.pattern)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	allocs := testing.AllocsPerRun(20, func() {
		for i, p := range ps {
			p.Match(matchCases[i].rel, matchCases[i].isDir)
		}
	})
	if allocs != 0 {
		t.Errorf("Match allocated %v times per run, want 0", allocs)
	}
}

// Patterns are shared by every permission check; run with -race.
func TestConcurrentMatch(t *testing.T) {
	ps := make([]*Pattern, len(matchCases))
	for i, c := range matchCases {
		p, err := Compile(c.pattern)
		if err != nil {
			t.Fatal(err)
		}
		ps[i] = p
	}
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			for i, c := range matchCases {
				if got := ps[i].Match(c.rel, c.isDir); got != c.want {
					errs <- fmt.Errorf("%s: Match = %v", c.name(), got)
					return
				}
			}
			errs <- nil
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// foldEq's shortcut relies on exactly two runes beyond ASCII folding to
// ASCII, and fold must be constant on each orbit.
func TestFoldToASCII(t *testing.T) {
	for r := rune(utf8.RuneSelf); r <= unicode.MaxRune; r++ {
		if unicode.SimpleFold(r) == r {
			continue // no other case
		}
		f := fold(r)
		if f < utf8.RuneSelf && r != kelvinSign && r != longS {
			t.Errorf("fold(%U) = %q, which foldEq does not expect", r, f)
		}
		for u := unicode.SimpleFold(r); u != r; u = unicode.SimpleFold(u) {
			if fold(u) != f {
				t.Fatalf("fold(%U) = %U but fold(%U) = %U", r, f, u, fold(u))
			}
		}
		if !foldEq(r, f) {
			t.Fatalf("foldEq(%U, fold(%U)) = false", r, r)
		}
	}
	if fold(kelvinSign) != 'k' || fold(longS) != 's' {
		t.Errorf("fold(K) = %q, fold(ſ) = %q", fold(kelvinSign), fold(longS))
	}
}
