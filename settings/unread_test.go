package settings

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/reinsdev/reins/bashrules"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/posjson"
)

// TestUntrustedListsAreCountedNotRead: in an untrusted project the shared file's allow rules
// and additional directories are counted, with the list's position, and not read; what the
// file says about deny and ask rules, and every error of the file, is as in a trusted project.
func TestUntrustedListsAreCountedNotRead(t *testing.T) {
	tests := []struct {
		name, doc string
		// wantAllow and wantDirs are "count line:col" of the unread lists, or "".
		wantAllow, wantDirs string
		wantDeny            []string
		// wantErr is the error, the same trusted or not.
		wantErr string
	}{
		{name: "rules of every kind", doc: "{\"permissions\": {\n  \"allow\": [\"Read\", \"bad\", 7, {\"x\": [\"Edit\"]}, \"Bash(a,b)\"],\n  \"deny\": [\"Bash(rm:*)\"],\n  \"additionalDirectories\": [\"/nowhere\", \"..\"]}}",
			wantAllow: "5 2:12", wantDirs: "2 4:28", wantDeny: []string{"Bash(rm:*) 3:12"}},
		{name: "empty lists", doc: `{"permissions": {"allow": [], "additionalDirectories": [ ], "deny": ["Edit"]}}`,
			wantDeny: []string{"Edit 1:70"}},
		{name: "strings that look like brackets", doc: `{"permissions": {"allow": ["Bash(echo \"]\" , [)", "x\\"], "deny": ["Read(\"]\")"]}}`,
			wantAllow: "2 1:27", wantDeny: []string{`Read("]") 1:69`}},
		{name: "duplicate permissions objects", doc: `{"permissions": {"allow": ["A"]}, "permissions": {"allow": ["B", "C"], "ask": ["Glob"]}}`,
			wantErr: `duplicate key "permissions" in a settings file that holds deny or ask rules`},
		{name: "an escaped key is the same key", doc: `{"perm\u0069ssions": {"\u0061llow": ["A", "B"], "deny": ["Edit"]}}`,
			wantAllow: "2 1:37", wantDeny: []string{"Edit 1:58"}},
		{name: "syntax error inside the allow list", doc: "{\"permissions\": {\n  \"allow\": [\"Read\",\n  \"Edit\" \"Bash\"],\n  \"deny\": [\"Edit\"]}}",
			wantErr: "3:10: invalid character '\"' after array element"},
		{name: "allow list not closed", doc: `{"permissions": {"deny": ["Edit"], "allow": ["Read"`,
			wantErr: "1:52: unexpected end of JSON input (a closing brace, bracket or quote is missing)"},
		{name: "allow is not a list", doc: `{"permissions": {"deny": ["Edit"], "allow": "Read"}}`,
			wantErr: "1:45: permissions.allow must be an array of strings, not a string"},
		{name: "misspelt deny beside the list", doc: `{"permissions": {"allow": ["Read"], "dney": ["Bash"]}}`,
			wantErr: `1:37: unknown key "dney" in permissions (did you mean "deny"?): these rules would apply nothing as written`},
		{name: "nested too deeply inside the list", doc: `{"permissions": {"allow": [` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `]}}`,
			wantErr: "JSON is nested too deeply"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _, _, err := parseSettingsAs("f.json", []byte(tt.doc), false, true)
			_, _, _, trustedErr := parseSettingsAs("f.json", []byte(tt.doc), false, false)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("untrusted error %v, want %q", err, tt.wantErr)
				}
				if trustedErr == nil || trustedErr.Error() != err.Error() {
					t.Errorf("trusted error %v, untrusted %v: they must be the same", trustedErr, err)
				}
				return
			}
			if err != nil || trustedErr != nil {
				t.Fatalf("errors %v, %v", err, trustedErr)
			}
			if len(s.Allow) != 0 || len(s.AdditionalDirectories) != 0 {
				t.Errorf("read %d allow rules and %d directories of an untrusted file", len(s.Allow), len(s.AdditionalDirectories))
			}
			unread := func(u *Unread) string {
				if u == nil {
					return ""
				}
				return fmt.Sprintf("%d %d:%d", u.Count, u.Line, u.Col)
			}
			if got := unread(s.UnreadAllow); got != tt.wantAllow {
				t.Errorf("unread allow %q, want %q", got, tt.wantAllow)
			}
			if got := unread(s.UnreadDirectories); got != tt.wantDirs {
				t.Errorf("unread directories %q, want %q", got, tt.wantDirs)
			}
			var deny []string
			for _, e := range s.Deny {
				deny = append(deny, fmt.Sprintf("%s %d:%d", e.Value, e.Line, e.Col))
			}
			if diff := cmp.Diff(tt.wantDeny, deny); diff != "" {
				t.Errorf("deny (-want +got):\n%s", diff)
			}
			trusted, _, _, _ := parseSettingsAs("f.json", []byte(tt.doc), false, false)
			if diff := cmp.Diff(trusted.Deny, s.Deny); diff != "" {
				t.Errorf("deny read trusted and untrusted differ (-trusted +untrusted):\n%s", diff)
			}
		})
	}
}

// TestUntrustedBrokenDenyStillStopsTheRun: counting the allow list changes nothing for a
// deny rule that cannot be loaded.
func TestUntrustedBrokenDenyStillStopsTheRun(t *testing.T) {
	e := newEnv(t)
	p := e.write(t, "project", `{"permissions": {"allow": ["Read", "bad"], "deny": ["Bash(rm", 3]}}`)
	r, err := e.load(t).Report(Flags{})
	if err != nil {
		t.Fatal(err)
	}
	var bpe *BrokenPolicyError
	if err := r.FailClosed(); !errors.As(err, &bpe) || len(bpe.Problems) != 2 {
		t.Fatalf("FailClosed: %v; want the two broken deny rules", err)
	}
	for i, want := range []string{p + ":1:53:", p + ":1:64:"} {
		if got := bpe.Problems[i].String(); !strings.HasPrefix(got, want) {
			t.Errorf("problem %q, want it at %s", got, want)
		}
	}
}

// TestUntrustedAllowRulesAllocateNothing: loading an untrusted project whose shared file holds
// 20,000 allow rules allocates what loading one with 10 does; only the deny rules are read.
func TestUntrustedAllowRulesAllocateNothing(t *testing.T) {
	allocs := func(n int) float64 {
		e := newEnv(t)
		rules := make([]string, n)
		for i := range rules {
			rules[i] = fmt.Sprintf(`"Bash(tool%d --flag:*)"`, i)
		}
		e.write(t, "project", `{"permissions": {"allow": [`+strings.Join(rules, ",\n")+`], "deny": ["Read(./.env)"], "additionalDirectories": [`+strings.Join(rules, ",")+`]}}`)
		l := e.load(t)
		if u := l.Files[2].Settings.UnreadAllow; u == nil || u.Count != n {
			t.Fatalf("unread allow %+v, want %d", u, n)
		}
		return testing.AllocsPerRun(5, func() {
			if _, err := Load(e.opts); err != nil {
				t.Fatal(err)
			}
		})
	}
	// A few allocations of slack for pools that may miss; reading the rules would cost two
	// or more each.
	small, large := allocs(10), allocs(20_000)
	if large > small+5 {
		t.Errorf("Load allocates %.0f times with 20,000 untrusted allow rules, %.0f with 10", large, small)
	}
}

// TestUntrustedAllowRulesDecideNothing is the property behind counting: whatever the rules,
// an untrusted project decides the same with the allow rules and directories of its files,
// shared and local, without them, and as when they were read whole and then set aside (before
// they were counted). The local files are drawn like the shared ones: a repository can commit
// either.
func TestUntrustedAllowRulesDecideNothing(t *testing.T) {
	tools := []string{"Bash(git push:*)", "Bash(rm:*)", "Bash(ls)", "Bash(* --force)", "Bash", "Read(./src/**)", "Read(**/.env)",
		"Edit(/src/*.go)", "Edit", "Read", "WebFetch(domain:x.com)", "bad rule", "Bash(", "Glob"}
	commands := []string{"git push origin", "rm -rf src", "ls", "cat src/a.go", "echo hi > src/b.go", "git push --force", "cat .env"}
	paths := []string{"src/a.go", ".env", "src/x/.env", "/etc/passwd", "docs/readme"}
	rapid.Check(t, func(rt *rapid.T) {
		e := newEnv(t)
		extra := filepath.Join(e.root, "extra")
		if err := os.MkdirAll(extra, 0o755); err != nil {
			rt.Fatal(err)
		}
		pick := func(label string) string {
			rs := rapid.SliceOfN(rapid.SampledFrom(tools), 0, 5).Draw(rt, label)
			out := make([]string, len(rs))
			for i, r := range rs {
				out[i] = posjson.Quote(r)
			}
			return "[" + strings.Join(out, ", ") + "]"
		}
		// Gated lists first move every later rule's position in the document without them;
		// decisions are then compared without positions.
		gatedFirst := rapid.Bool().Draw(rt, "gated lists first")
		doc := func(name string, gated bool) (with, without string) {
			lists := `"deny": ` + pick(name+" deny") + `, "ask": ` + pick(name+" ask")
			gatedLists := `"allow": ` + pick(name+" allow")
			if gated {
				gatedLists += `, "additionalDirectories": [` + posjson.Quote(extra) + `]`
			}
			if gatedFirst {
				return `{"permissions": {` + gatedLists + ", " + lists + `}}`, `{"permissions": {` + lists + `}}`
			}
			return `{"permissions": {` + lists + ", " + gatedLists + `}}`, `{"permissions": {` + lists + `}}`
		}
		with, _ := doc("user", false)
		e.write(t, "user", with)
		stripped := map[string]string{}
		for _, name := range []string{"project", "projectClaude", "local", "localClaude"} {
			if !rapid.Bool().Draw(rt, name+" present") {
				continue
			}
			with, without := doc(name, rapid.Bool().Draw(rt, name+" directories"))
			e.write(t, name, with)
			stripped[name] = without
		}
		counted := buildForCompare(rt, e.opts)
		// Read whole, then set aside by Build: how an untrusted project loaded before.
		whole := e.opts
		whole.trusted = true
		wholeRead := buildForCompare(rt, whole)
		for name, doc := range stripped {
			e.write(t, name, doc)
		}
		without := buildForCompare(rt, e.opts)

		for i, other := range []*permission.Context{wholeRead, without} {
			samePositions := i == 0 || !gatedFirst
			decided := func(d permission.Decision) string {
				s := fmt.Sprintf("%s | %s | %s", d.Behavior, d.Reason, d.Message)
				if !samePositions {
					s = position.ReplaceAllString(s, "$1")
				}
				return s
			}
			if diff := cmp.Diff(ruleStrings(counted), ruleStrings(other)); diff != "" {
				rt.Fatalf("rules differ (-counted +other):\n%s", diff)
			}
			if diff := cmp.Diff(counted.AdditionalDirs(), other.AdditionalDirs()); diff != "" {
				rt.Fatalf("directories differ:\n%s", diff)
			}
			ctx := context.Background()
			for _, c := range commands {
				if a, b := decided(bashrules.Check(ctx, counted, c)), decided(bashrules.Check(ctx, other, c)); a != b {
					rt.Fatalf("%q: %s counted, %s otherwise", c, a, b)
				}
			}
			for _, p := range paths {
				p = filepath.Join(e.opts.Cwd, p)
				for _, check := range []func(*permission.Context) permission.Decision{
					func(pc *permission.Context) permission.Decision { return pc.CheckRead(ctx, p) },
					func(pc *permission.Context) permission.Decision { return pc.CheckWrite(ctx, p) },
				} {
					if a, b := decided(check(counted)), decided(check(other)); a != b {
						rt.Fatalf("%s: %s counted, %s otherwise", p, a, b)
					}
				}
			}
		}
	})
}

// buildForCompare loads opts and builds the context as a run in an untrusted project does.
func buildForCompare(rt *rapid.T, opts Options) *permission.Context {
	l, err := Load(opts)
	if err != nil {
		rt.Fatal(err)
	}
	pc, _, err := l.Context(Flags{})
	if err != nil {
		rt.Fatal(err)
	}
	return pc
}

// position is a rule's position in a settings file, as decisions report it.
var position = regexp.MustCompile(`(settings(?:\.local)?\.json):\d+:\d+`)
