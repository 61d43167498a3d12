package bashrules

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/reinsdev/reins/permission"
)

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
		// Their entries say nosuggest: a rule for them would allow anything.
		{"ssh build-host make", nil},
		{"su -c make root", nil},
		{"pkexec make", nil},
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
