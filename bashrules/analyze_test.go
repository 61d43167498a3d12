package bashrules

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/reinsdev/reins/permission"
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
		a, err := Analyze(tt.cmd)
		if err != nil {
			t.Fatalf("Analyze(%q): %v", tt.cmd, err)
		}
		if diff := cmp.Diff(tt.want, names(a, false)); diff != "" {
			t.Errorf("Analyze(%q) commands (-want +got):\n%s", tt.cmd, diff)
		}
	}
}

func TestAnalyzeSpeculative(t *testing.T) {
	a, err := Analyze(`python3 -c "import os; os.system('rm -rf x')"`)
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
		f, err := parse("echo " + tt.src)
		if err != nil {
			t.Fatalf("%s: %v", tt.src, err)
		}
		a, err := Analyze("echo " + tt.src)
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
	a, err := Analyze("{rm,-rf,/} a{b,c}d {1..3} '{x,y}'")
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
	a, err = Analyze("echo {1..100000}")
	if err != nil {
		t.Fatal(err)
	}
	if c := a.Commands[0]; c.Argv != nil || len(c.Issues) == 0 {
		t.Errorf("huge brace expansion followed: %d words, issues %v", len(c.Argv), c.Issues)
	}
}

func TestAnalyzeIssues(t *testing.T) {
	for _, cmd := range []string{"echo $((x))", "echo ${!x}", "(( i++ ))", "[[ $x -gt 1 ]]", "[[ -v a[$i] ]]", "let x=y", "a[i]=1", "echo ${x:y}", "echo ${a[i]}"} {
		a, err := Analyze(cmd)
		if err != nil {
			t.Fatal(err)
		}
		if len(a.Issues) == 0 {
			t.Errorf("Analyze(%q): no issue for arithmetic on a variable", cmd)
		}
	}
	for _, cmd := range []string{"echo $((1+2))", "(( 3 > 2 ))", "[[ 1 -eq 1 ]]", "echo ${#x} ${x:-y} ${x/a/b}", "a[1]=2", "echo ${x:1:2}"} {
		a, err := Analyze(cmd)
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
		if _, err := Analyze(cmd); err == nil {
			t.Errorf("Analyze(%q) parsed", cmd)
		}
	}
	if _, err := Analyze(strings.Repeat("a", maxParseLength+1)); err != ErrTooLong {
		t.Errorf("huge input: err = %v, want ErrTooLong", err)
	}
}

func TestAnalyzeTextIsSourceWords(t *testing.T) {
	a, err := Analyze(`FOO=1   git  commit -m "a  b"  > out`)
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

func TestSed(t *testing.T) {
	tests := []struct {
		script         string
		reads, writes  []string
		exec, unparsed bool
	}{
		{script: "s/a/b/g"},
		{script: "1,10p;$d"},
		{script: "/x/,/y/{s/a/b/;p}"},
		{script: `s|a/b|c|`},
		{script: `s/[/]/x/`},
		{script: "y/abc/def/"},
		{script: "s/a/b/w out.txt", writes: []string{"out.txt"}},
		{script: "w out.txt", writes: []string{"out.txt"}},
		{script: "1r /etc/passwd", reads: []string{"/etc/passwd"}},
		{script: "R in.txt", reads: []string{"in.txt"}},
		{script: "1e id", exec: true},
		{script: "s/a/id/e", exec: true},
		{script: "s/a/b/ew x", exec: true, writes: []string{"x"}},
		{script: "a hello; w not-a-file"},
		{script: "2q;3Q 1"},
		{script: "b end; :end"},
		{script: "k", unparsed: true},
		{script: "s/a/b", unparsed: true},
		{script: "w", unparsed: true},
		{script: "s/a/b/w /dev/stdout"},
	}
	for _, tt := range tests {
		got := analyzeSed(tt.script)
		want := sedInfo{reads: tt.reads, writes: tt.writes, exec: tt.exec, unparsed: tt.unparsed}
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(sedInfo{})); diff != "" {
			t.Errorf("analyzeSed(%q) (-want +got):\n%s", tt.script, diff)
		}
	}
}

func TestIsReadOnly(t *testing.T) {
	f := newFixture(t)
	pc := f.context(t, permission.ModeDefault)
	tests := map[string]bool{
		"ls -la":                         true,
		"cat README.md | grep x | wc -l": true,
		"git status && git log -3":       true,
		"timeout 5 rg foo":               true,
		"bash -c 'ls; pwd'":              true,
		"find . -name '*.go'":            true,
		"echo hi 2>/dev/null":            true,
		"x=1; y=2":                       true,
		"sed -n 1p README.md":            true,
		"cat /etc/passwd":                true, // only reads; Check asks for the path
		"echo hi > out.txt":              false,
		"cd src":                         false,
		"touch a":                        false,
		"find . -delete":                 false,
		"sed -i s/a/b/ x":                false,
		"sort -o x y":                    false,
		"git branch -D x":                false,
		"echo $(ls)":                     false,
		"echo $((x))":                    false,
		"FOO=1 ls":                       false,
		"xargs cat":                      false,
		"rg --pre cat x":                 false,
		"rg -z x":                        false,
		"git grep --open-files=vim x":    false,
		"sed --in-pl s/a/b/ x":           false,
		"sort --outp=x y":                false,
		"date --se=now":                  false,
		"awk 'BEGIN{system(\"id\")}'":    false,
		"awk '{print $1}' README.md":     true,
		"head --li=3 README.md":          true,
		"cat --bogus README.md":          false,
		"echo \u202e":                    false,
		"echo \"x":                       false,
		"/tmp/ls":                        false,
		"npm test":                       false,
	}
	for cmd, want := range tests {
		if got := IsReadOnly(pc, cmd); got != want {
			t.Errorf("IsReadOnly(%q) = %v, want %v", cmd, got, want)
		}
	}
}

func TestSuggestions(t *testing.T) {
	f := newFixture(t)
	pc := f.context(t, permission.ModeDefault)
	tests := []struct {
		cmd  string
		want []string
	}{
		{"npm test", []string{"npm test:*"}},
		{"touch t.txt", []string{"touch t.txt"}},
		{"make", []string{"make"}},
		{"LANG=C cargo build --release", []string{"cargo build:*"}},
		{"timeout 60 go test ./...", []string{"go test:*"}},
		{"sudo make install", nil},
		{"python3 x.py", []string{"python3 x.py"}},
		{"python3 -m pytest -x tests/", []string{"python3 -m pytest:*"}},
		{"python3 -m unittest", []string{"python3 -m unittest:*"}},
		{"python3 -m pip install requests", []string{"python3 -m pip install:*"}},
		{"node test.js", []string{"node test.js"}},
		{"bash x.sh", nil},
		{"xargs rm", nil},
		{"echo $X | cat && npm test", []string{"npm test:*"}},
		{"npm test && cargo build && go vet ./... && make x && pytest -q && ruff check && mypy .", []string{"npm test:*", "cargo build:*", "go vet:*", "make x:*", "pytest -q"}},
	}
	for _, tt := range tests {
		d := Check(context.Background(), pc, tt.cmd)
		var got []string
		for _, u := range d.Suggestions {
			if u.Type != permission.AddRules || u.Destination != permission.SourceLocal || u.Behavior != permission.Allow {
				t.Errorf("%q: suggestion %+v is not an allow rule for local settings", tt.cmd, u)
			}
			for _, r := range u.Rules {
				if r.Tool != "Bash" {
					t.Errorf("%q: suggestion for tool %s", tt.cmd, r.Tool)
				}
				got = append(got, r.Content)
			}
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("suggestions for %q (-want +got):\n%s", tt.cmd, diff)
		}
		// A suggested rule must allow the command it was made for when that is all it needs.
		if len(got) == 1 && !strings.Contains(tt.cmd, "$") {
			pc2 := f.context(t, permission.ModeDefault, "allow:Bash("+got[0]+")")
			if d := Check(context.Background(), pc2, tt.cmd); d.Behavior != permission.Allow {
				t.Errorf("%q with its suggested rule %q = %s", tt.cmd, got[0], d.Behavior)
			}
		}
	}
}
