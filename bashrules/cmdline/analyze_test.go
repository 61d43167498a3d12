package cmdline

import (
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"mvdan.cc/sh/v3/syntax"
	"pgregory.net/rapid"
)

// names lists the analysis's commands as "name" or "name<via" for children, skipping
// speculative ones unless spec is set.
func names(a *Analysis, spec bool) []string {
	var out []string
	for _, c := range a.Commands {
		if c.Speculative && !spec {
			continue
		}
		n, ok := c.Name()
		if !ok {
			n = "?" + c.Kind.String()
		}
		if c.Parent != nil {
			n += "<" + c.Via
		}
		out = append(out, n)
	}
	return out
}

func TestAnalyzeFindsEveryCommand(t *testing.T) {
	tests := []struct {
		cmd  string
		want []string
	}{
		{"a; b && c || d | e |& f & g\nh", []string{"a", "b", "c", "d", "e", "f", "g", "h"}},
		{"(a; { b; }) && if c; then d; elif e; then f; else g; fi", []string{"a", "b", "c", "d", "e", "f", "g"}},
		{"while a; do b; done; until c; do d; done; for x in $(e); do f; done", []string{"a", "b", "c", "d", "e", "?assignment", "f"}},
		{"case $(a) in x) b;; esac", []string{"a", "b"}},
		{"echo $(a `b`) <(c) >(d)", []string{"b", "a", "c", "d", "echo"}},
		{"cat <<EOF\n$(a)\nEOF", []string{"a", "cat"}},
		{"f() { a; }; f", []string{"a", "f"}},
		{"x=$(a) y=1", []string{"a", "?assignment"}},
		{"export A=$(a)", []string{"a", "export"}},
		{"[[ $(a) ]] && (( $(b) ))", []string{"a", "?test", "b", "?arithmetic"}},
		{"timeout 5 nice -n 1 a", []string{"timeout", "nice<timeout", "a<nice"}},
		{"sudo -u x env A=1 b c", []string{"sudo", "env<sudo", "b<env"}},
		{"bash -c 'a; b'", []string{"bash", "a<bash -c", "b<bash -c"}},
		{"eval 'a | b'", []string{"eval", "a<eval", "b<eval"}},
		{"find . -exec a {} \\; -execdir b +", []string{"find", "a<find -exec", "b<find -execdir"}},
		{"xargs -0 a b", []string{"xargs", "a<xargs"}},
		{"watch 'a; b'", []string{"watch", "a<watch", "b<watch"}},
		{"{a,b} c", []string{"a"}},
		{"time a", []string{"a"}},
		{"coproc a", []string{"a"}},
		{"! a", []string{"a"}},
	}
	for _, tt := range tests {
		a, err := Analyze(tt.cmd, nil)
		if err != nil {
			t.Fatalf("Analyze(%q): %v", tt.cmd, err)
		}
		if diff := cmp.Diff(tt.want, names(a, false)); diff != "" {
			t.Errorf("Analyze(%q) commands (-want +got):\n%s", tt.cmd, diff)
		}
	}
}

func TestAnalyzeSpeculative(t *testing.T) {
	a, err := Analyze(`python3 -c "import os; os.system('rm -rf x')"`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(a, true); !slices.Contains(got, "rm<python3 code") {
		t.Errorf("commands = %v, want the rm in the inline code", got)
	}
	if got := names(a, false); slices.Contains(got, "rm<python3 code") {
		t.Errorf("speculative rm listed as real: %v", got)
	}
}

func TestWords(t *testing.T) {
	tests := []struct {
		src   string
		value string
		known bool
		glob  bool
		tilde TildeKind
	}{
		{`plain`, "plain", true, false, NoTilde},
		{`r\m`, "rm", true, false, NoTilde},
		{`"a b"`, "a b", true, false, NoTilde},
		{`'a"b'`, `a"b`, true, false, NoTilde},
		{`"a\$b\z"`, `a$b\z`, true, false, NoTilde},
		{`a"b"'c'`, "abc", true, false, NoTilde},
		{`*.go`, "*.go", true, true, NoTilde},
		{`\*.go`, "*.go", true, false, NoTilde},
		{`"*.go"`, "*.go", true, false, NoTilde},
		{`a[1]`, "a[1]", true, true, NoTilde},
		{`[`, "[", true, false, NoTilde},
		{`~`, "~", true, false, TildeHome},
		{`~/x`, "~/x", true, false, TildeHome},
		{`~root/x`, "~root/x", true, false, TildeOther},
		{`"~/x"`, "~/x", true, false, NoTilde},
		{`~"/x"`, "~/x", true, false, NoTilde},
		{`\~/x`, "~/x", true, false, NoTilde},
		{`$x`, "", false, false, NoTilde},
		{`a$(b)`, "", false, false, NoTilde},
		{`$'x'`, "", false, false, NoTilde},
		{`$"x"`, "", false, false, NoTilde},
		{`"$x"`, "", false, false, NoTilde},
		{`@(a|b)`, "", false, false, NoTilde},
	}
	for _, tt := range tests {
		f, err := Parse("echo " + tt.src)
		if err != nil {
			t.Fatalf("%s: %v", tt.src, err)
		}
		a, err := Analyze("echo "+tt.src, nil)
		if err != nil || len(f.Stmts) != 1 {
			t.Fatalf("%s: %v", tt.src, err)
		}
		var w Word
		for _, c := range a.Commands {
			if n, _ := c.Name(); n == "echo" {
				w = c.Words[1]
			}
		}
		if w.Known != tt.known || (tt.known && w.Value != tt.value) || w.Glob != tt.glob || w.Tilde != tt.tilde {
			t.Errorf("word %s = %+v, want value %q known %v glob %v tilde %v", tt.src, w, tt.value, tt.known, tt.glob, tt.tilde)
		}
		if w.Src != tt.src {
			t.Errorf("word %s: Src = %q", tt.src, w.Src)
		}
	}
}

func TestBraceExpansion(t *testing.T) {
	a, err := Analyze("{rm,-rf,/} a{b,c}d {1..3} '{x,y}'", nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range a.Commands[0].Argv {
		got = append(got, w.Value)
	}
	want := []string{"rm", "-rf", "/", "abd", "acd", "1", "2", "3", "{x,y}"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("argv (-want +got):\n%s", diff)
	}
	a, err = Analyze("echo {1..100000}", nil)
	if err != nil {
		t.Fatal(err)
	}
	if c := a.Commands[0]; c.Argv != nil || len(c.Issues) == 0 {
		t.Errorf("huge brace expansion followed: %d words, issues %v", len(c.Argv), c.Issues)
	}
}

func TestAnalyzeIssues(t *testing.T) {
	for _, cmd := range []string{"echo $((x))", "echo ${!x}", "(( i++ ))", "[[ $x -gt 1 ]]", "[[ -v a[$i] ]]", "let x=y", "a[i]=1", "echo ${x:y}", "echo ${a[i]}"} {
		a, err := Analyze(cmd, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(a.Issues) == 0 {
			t.Errorf("Analyze(%q): no issue for arithmetic on a variable", cmd)
		}
	}
	for _, cmd := range []string{"echo $((1+2))", "(( 3 > 2 ))", "[[ 1 -eq 1 ]]", "echo ${#x} ${x:-y} ${x/a/b}", "a[1]=2", "echo ${x:1:2}"} {
		a, err := Analyze(cmd, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(a.Issues) != 0 {
			t.Errorf("Analyze(%q): issues %v for arithmetic on numbers only", cmd, a.Issues)
		}
	}
}

func TestAnalyzeErrors(t *testing.T) {
	for _, cmd := range []string{`echo "x`, "echo $(", "if true; then", "a &&", "echo )"} {
		if _, err := Analyze(cmd, nil); err == nil {
			t.Errorf("Analyze(%q) parsed", cmd)
		}
	}
	if _, err := Analyze(strings.Repeat("a", MaxParseLength+1), nil); err != ErrTooLong {
		t.Errorf("huge input: err = %v, want ErrTooLong", err)
	}
}

func TestAnalyzeTextIsSourceWords(t *testing.T) {
	a, err := Analyze(`FOO=1   git  commit -m "a  b"  > out`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := a.Commands[0].Text, `FOO=1 git commit -m "a  b"`; got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
	if len(a.Redirects) != 1 || a.Redirects[0].Target.Value != "out" || a.Redirects[0].Kind != RedirOut {
		t.Errorf("redirects = %+v", a.Redirects)
	}
}

// TestEvalWordSingleLiteral checks the shortcut for a word that is one literal without a
// backslash against the general path (the same word written as two literal parts cannot
// happen in a parse, so the check compares with unquoteLit writing into a builder).
func TestEvalWordSingleLiteral(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.StringOfN(rapid.SampledFrom([]rune("ab~/*?[].-x")), 1, 12, -1).Draw(t, "literal")
		var b strings.Builder
		glob := unquoteLit(&b, s)
		if b.String() != s {
			t.Fatalf("unquoteLit(%q) wrote %q", s, b.String())
		}
		if g := unquoteLit(nil, s); g != glob {
			t.Fatalf("unquoteLit(nil, %q) glob %v, with a builder %v", s, g, glob)
		}
		w := evalWord(s, &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: s}}})
		if !w.Known || w.Value != s || w.Glob != glob {
			t.Fatalf("evalWord(%q) = %+v, want value %q glob %v", s, w, s, glob)
		}
	})
}

// TestCallTextSpan checks that a call's text is the same whether taken from its source span
// or built from its parts.
func TestCallTextSpan(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var as []Assignment
		for range rapid.IntRange(0, 2).Draw(t, "assigns") {
			as = append(as, Assignment{Src: rapid.SampledFrom([]string{"A=1", "B=", "C='x y'"}).Draw(t, "assign")})
		}
		var ws []Word
		for range rapid.IntRange(0, 3).Draw(t, "words") {
			ws = append(ws, Word{Src: rapid.SampledFrom([]string{"ls", "-l", "'a b'", "x\\ y", ""}).Draw(t, "word")})
		}
		want := callText("", as, ws)
		span := rapid.SampledFrom([]string{want, want + " ", "  " + want, "ls -l", "A=1  ls", ""}).Draw(t, "span")
		if got := callText(span, as, ws); got != want {
			t.Fatalf("callText(%q, %v, %v) = %q, want %q", span, as, ws, got, want)
		}
	})
}

// TestWordChunksDisjoint: the words of the commands of one analysis, cut from shared chunks,
// never overlap (but for a wrapper's child, which is the tail of its parent's words) and are
// capped at their length, so that appending to one (or to a tail of
// it, as a wrapper's child does) cannot write into another's; fields counts what it says.
func TestWordChunksDisjoint(t *testing.T) {
	parts := []string{"git status", "ls -la src", "a b c d e f g h i j k l m n o p q r s", "x", "sudo rm -rf y", "bash -c 'cat a | wc -l'",
		"echo \"a   b\"\tc", "find . -name x -exec rm {} \\;", "FOO=1", "xargs -n1 echo"}
	rapid.Check(t, func(t *rapid.T) {
		picked := rapid.SliceOfN(rapid.SampledFrom(parts), 1, 30).Draw(t, "parts")
		a, err := Analyze(strings.Join(picked, " && "), nil)
		if err != nil {
			t.Fatal(err)
		}
		type span struct{ lo, hi uintptr }
		var spans []span
		for _, c := range a.Commands {
			if len(c.Words) == 0 {
				continue
			}
			if c.Kind == KindCall && cap(c.Words) != len(c.Words) {
				t.Fatalf("%q: words have room past their end (len %d, cap %d)", c.Text, len(c.Words), cap(c.Words))
			}
			lo := uintptr(unsafe.Pointer(unsafe.SliceData(c.Words)))
			s := span{lo, lo + uintptr(len(c.Words))*unsafe.Sizeof(Word{})}
			for _, o := range spans {
				// A wrapper's child takes the tail of its parent's words (sudo rm x: rm x), which
				// ends where they end; any other overlap is two commands sharing a chunk's part.
				if s.lo < o.hi && o.lo < s.hi && s.hi != o.hi {
					t.Fatalf("%q: words overlap another command's", c.Text)
				}
			}
			spans = append(spans, s)
		}
	})
	for s, want := range map[string]int{"": 0, "a": 1, " a  b\t\nc ": 3, "git status && ls": 4} {
		if got := fields(s); got != want {
			t.Errorf("fields(%q) = %d, want %d", s, got, want)
		}
	}
}
