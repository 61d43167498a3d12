package bashrules

import (
	"context"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"pgregory.net/rapid"

	"github.com/reinsdev/reins/permission"
)

// linearMatch is the plain definition the index must agree with: the first rule in load order
// that matches any candidate.
func linearMatch(rules []*permission.Rule, cands []string, loose bool) *permission.Rule {
	for _, r := range rules {
		if !loose && Form(r.Value.Content) != FormExact {
			continue
		}
		for _, c := range cands {
			if MatchRule(r.Value.Content, c) {
				return r
			}
		}
	}
	return nil
}

func TestRuleIndexAgreesWithLinearScan(t *testing.T) {
	words := []string{"git", "git status", "git push", "npm", "npm run test", "xargs rm", "rm -rf x", "ls", " ls", "go vet ./...", "*", "\\*",
		"git push -f origin", "git pushx", "git push", "xargs git push x", "xargs rm -rf x", "npm run", "npm  run test", "git status  x", "git  push",
		"ls 12", "git status 123", "rm -rf x12", "ls --force", "ls Z9", "ls x -1", "a/b", "*12"}
	contents := []string{"git:*", "git push:*", "git *", "git", "npm run test:*", "npm run *", "*force*", "rm:*", "ls", " ls", ":*",
		"git*", "\\*", "go vet *", "* status", "xargs rm:*", "git status", "npm*test",
		"git push -f *", "git push -f:*", "rm -rf:*", "xargs rm -rf:*", "npm run test *", "git push*", "git push \\*", "git \\* x:*", "npm run:*", " git push:*", "git push :*", "git  push:*", "git push x*", "git status  *",
		"*12*", "*2*", "*tat*", "*Z9*", "*x -1*", "* ls*", "\\*12*", "*/*", "*--force*"}
	rapid.Check(t, func(t *rapid.T) {
		var rules []*permission.Rule
		for _, c := range rapid.SliceOfN(rapid.SampledFrom(contents), 0, 12).Draw(t, "rules") {
			rules = append(rules, &permission.Rule{Value: permission.RuleValue{Tool: "Bash", Content: c}, Behavior: permission.Deny})
		}
		cands := rapid.SliceOfN(rapid.SampledFrom(words), 1, 3).Draw(t, "cands")
		loose := rapid.Bool().Draw(t, "loose")
		want := linearMatch(rules, cands, loose)
		got := newRuleSet(rules, false).match(cands, loose)
		if got != want {
			t.Fatalf("index found %v, linear scan %v", got, want)
		}
	})
}

// TestMayNameSeesWildcardRules checks that a deny or ask rule whose first word is a wildcard
// counts as possibly naming any command, whichever list of the index holds it.
func TestMayNameSeesWildcardRules(t *testing.T) {
	fx := newFixture(t)
	for _, rule := range []string{"deny:Bash(*--force*)", "ask:Bash(* x)", "deny:Bash(\\*x:*)", "ask:Bash(*Z9 *)"} {
		k := newChecker(context.Background(), fx.context(t, permission.ModeDefault, rule), "true")
		for _, w := range []string{"ls", "x", "git"} {
			if !k.idx.mayName(w) {
				t.Errorf("with %s, mayName(%q) = false", rule, w)
			}
		}
	}
	k := newChecker(context.Background(), fx.context(t, permission.ModeDefault, "deny:Bash(git push:*)"), "true")
	if k.idx.mayName("ls") {
		t.Error("with only deny:Bash(git push:*), mayName(ls) = true")
	}
}

// TestJoinValuesOr checks the shortcut against joinValues on words and texts that may or may
// not be what joinValues builds.
func TestJoinValuesOr(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var ws []Word
		for range rapid.IntRange(0, 4).Draw(t, "n") {
			v := rapid.SampledFrom([]string{"", "a", "b c", "it's", "-x", "a*", "$X", "'a'"}).Draw(t, "value")
			src := rapid.SampledFrom([]string{v, quoteWord(v), "'" + v + "'", "a", ""}).Draw(t, "src")
			ws = append(ws, Word{Src: src, Value: v, Known: rapid.Bool().Draw(t, "known")})
		}
		quote := rapid.Bool().Draw(t, "quote")
		want := joinValues(ws, quote)
		same := rapid.SampledFrom([]string{want, want + " ", " " + want, "a", "", joinValues(ws, !quote)}).Draw(t, "same")
		if got := joinValuesOr(ws, quote, same); got != want {
			t.Fatalf("joinValuesOr(%+v, %v, %q) = %q, joinValues %q", ws, quote, same, got, want)
		}
	})
}

func TestSrcJoined(t *testing.T) {
	ws := []Word{{Src: "a"}, {Src: "'b c'"}, {Src: ""}}
	for s, want := range map[string]bool{"a 'b c' ": true, "a 'b c'": false, "a 'b c'  ": false, "a  'b c' ": false, "": false} {
		if got := srcJoined(ws, s); got != want {
			t.Errorf("srcJoined(%q) = %v", s, got)
		}
	}
	if !srcJoined(nil, "") || srcJoined(nil, "x") {
		t.Error("srcJoined of no words")
	}
}

// TestSpoofingASCIIShortcut: the byte scan that clears printable ASCII agrees with the rune
// by rune check on strings mixing ASCII, control bytes, invalid UTF-8 and the characters the
// check names.
func TestSpoofingASCIIShortcut(t *testing.T) {
	pieces := []string{"git status", " ", "\t", "\n", "a", "~", "\x7f", "\x00", "\x01", "\r", "\x1b[31m", "\xff", "\xc3", "é",
		"\u00a0", "\u200b", "\u202e", "\u2066", "\ufeff", "\u0085", "\u3000", "日本", "\u00ad", "'$(x)'"}
	rapid.Check(t, func(t *rapid.T) {
		s := strings.Join(rapid.SliceOfN(rapid.SampledFrom(pieces), 0, 8).Draw(t, "pieces"), "")
		if got, want := spoofing(s), spoofingRunes(s); got != want {
			t.Fatalf("spoofing(%q) = %q, rune by rune %q", s, got, want)
		}
	})
}

// TestJoinFromSuffix: the words from i on, joined, are taken from the whole join at the
// offset laterCommandRule computes, without building a string, and equal joinValues of them;
// with any other text they are still joinValues of them.
func TestJoinFromSuffix(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var ws []Word
		for range rapid.IntRange(1, 5).Draw(t, "n") {
			v := rapid.SampledFrom([]string{"", "a", "b c", "it's", "-x", "run", "$X"}).Draw(t, "value")
			src := rapid.SampledFrom([]string{v, quoteWord(v), "'" + v + "'", "$Y"}).Draw(t, "src")
			ws = append(ws, Word{Src: src, Value: v, Known: rapid.Bool().Draw(t, "known")})
		}
		real := joinValues(ws, false)
		full := rapid.SampledFrom([]string{real, real + "x", "", "a b"}).Draw(t, "full")
		off := 0
		for i := 1; i < len(ws); i++ {
			off += len(wordPiece(ws[i-1])) + 1
			got, want := joinFrom(ws[i:], full, off), joinValues(ws[i:], false)
			if got != want {
				t.Fatalf("joinFrom(%+v, %q, %d) = %q, want %q", ws[i:], full, off, got, want)
			}
			if full == real && unsafe.StringData(got) != unsafe.StringData(full[off:]) && got != "" {
				t.Fatalf("joinFrom(%+v, %q, %d) built %q instead of taking the end of the join", ws[i:], full, off, got)
			}
		}
	})
}

// TestCandArrayParts: candidates cut from the shared chunk, kept while later commands take
// theirs (as a parent's are kept while its children are decided), are still each command's
// own candidates when all are taken, however many a command has.
func TestCandArrayParts(t *testing.T) {
	parts := []string{"git status", "FOO=1 BAR=2 /usr/bin/git -C x push origin", "ls -la src", "X=1 npm run 'build x'", "/bin/ls \"a b\"",
		"go vet ./...", "export A=b", "git -c a=b log", "sudo -u x rm -rf y", "echo $HOME"}
	rapid.Check(t, func(t *rapid.T) {
		picked := rapid.SliceOfN(rapid.SampledFrom(parts), 1, 12).Draw(t, "parts")
		a, err := Analyze(strings.Join(picked, "; "))
		if err != nil {
			t.Fatal(err)
		}
		k := &checker{}
		var kept []candSet
		for _, c := range a.Commands {
			cs := candidates(c, k.candArray())
			cs.deny = append(cs.deny, "extra "+c.Text) // as an append past the part would
			kept = append(kept, cs)
		}
		for i, c := range a.Commands {
			want := candidates(c, make([]string, 9))
			want.deny = append(want.deny, "extra "+c.Text)
			if !slices.Equal(kept[i].deny, want.deny) || !slices.Equal(kept[i].allowExact, want.allowExact) || !slices.Equal(kept[i].allowLoose, want.allowLoose) {
				t.Fatalf("command %d %q: candidates %+v, alone %+v", i, c.Text, kept[i], want)
			}
		}
	})
}
