package bashrules

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/reinsdev/reins/permission"
)

// TestSameDecisionCoversCommand makes every field of Command either compared by sameDecision
// or set aside here with the reason: a new field fails this test until someone decides whether
// two commands that differ in it may share a decision.
func TestSameDecisionCoversCommand(t *testing.T) {
	compared := map[string]bool{"Kind": true, "Text": true, "Words": true, "Argv": true, "Assigns": true, "Parent": true,
		"Via": true, "Transparent": true, "Speculative": true, "ExtraArgs": true, "Roots": true, "OtherDir": true,
		"Nested": true, "Issues": true, "ReadsStdin": true}
	setAside := map[string]string{
		"Redirects": "redirections are decided as parts of their own (pathChecks.redirect), not by eval",
		"Where":     "read only through cwds, which twin compares",
		"PipedFrom": "read only through a child's Parent, and a command with children has no twin",
		"Index":     "where the checker keeps the command's own verdict, never read by its decision",
	}
	for f := range reflect.TypeFor[Command]().Fields() {
		if !compared[f.Name] && setAside[f.Name] == "" {
			t.Errorf("Command.%s is new: compare it in sameDecision or set it aside here with the reason", f.Name)
		}
	}
}

// TestIdenticalCommandDecidedOnce checks that a simple command written twice is decided once,
// and that a command after a cd is not taken for the same command before it.
func TestIdenticalCommandDecidedOnce(t *testing.T) {
	f := newFixture(t)
	pc := f.context(t, permission.ModeDefault, "allow:Bash(make test)", "allow:Bash(cat:*)", "deny:Read(./sub/a.txt)")
	tests := []struct {
		cmd       string
		want      string
		evals     int // commands decided by eval, twins not counted
		subresult int
	}{
		{"make test && make test", "allow", 1, 2},
		{"make test; make test | make test", "allow", 1, 3},
		// After the cd the second cat reads sub/a.txt, which is denied: it must be decided.
		{"cat a.txt && cd sub && cat a.txt", "deny", 3, 0},
		{"cat a.txt; cat a.txt", "allow", 1, 2},
		// Several cds are not followed: both cats are decided in the session's directory (as
		// they were before twins), and the directory changes ask.
		{"cd src && cat a.txt && cd sub && cat a.txt", "ask", 3, 4},
		// The analysis does not follow variables: both cat $x are the same unknown read.
		{"x=README.md; cat $x; x=sub/a.txt; cat $x", "ask", 3, 4},
	}
	for _, tt := range tests {
		k := newChecker(context.Background(), pc, tt.cmd)
		d := k.run()
		if got := outcome(d); got != tt.want {
			t.Errorf("%s = %s, want %s\n%s", tt.cmd, got, tt.want, explainNoTrace(d))
		}
		if k.evals != tt.evals {
			t.Errorf("%s: %d commands decided, want %d", tt.cmd, k.evals, tt.evals)
		}
		if tt.subresult > 0 && (d.Reason == nil || len(d.Reason.Subresults) != tt.subresult) {
			t.Errorf("%s: want %d parts in the decision\n%s", tt.cmd, tt.subresult, explainNoTrace(d))
		}
		// A trace decides every command; the decision is the same.
		if traced, _ := check(t, pc, tt.cmd); !reflect.DeepEqual(traced, d) {
			t.Errorf("%s: with a trace %s, without %s", tt.cmd, explainNoTrace(traced), explainNoTrace(d))
		}
	}
}

func explainNoTrace(d permission.Decision) string { return explain(d, &permission.Trace{}) }

// TestPropertyTwinsDecideAsAlone: for random command lines whose parts repeat, with cds,
// variables and paths that name other files after a cd, the decision is the one made when
// every command is decided (under a trace, which takes no twins).
func TestPropertyTwinsDecideAsAlone(tt *testing.T) {
	f := newFixture(tt)
	// Few parts, so that they repeat, and most of them name a.txt, which is another file after
	// cd sub.
	parts := []string{"cat a.txt", "cat a.txt", "cd sub", "cd sub", "touch a.txt", "echo x > a.txt", "make test", "cat .env",
		"x=a.txt", "cat $x", "rm a.txt", "git status", "(cat a.txt)", "cat a.txt | wc -l", "cd src", "npm run build"}
	ruleSets := [][]string{
		{"allow:Bash(cat:*)", "deny:Read(./sub/a.txt)"},
		{"allow:Bash(make test)", "ask:Read(./a.txt)", denyEnv},
		{"allow:Bash(*)", "deny:Read(./src/a.txt)", "allow:Edit(./sub/**)"},
	}
	modes := []permission.Mode{permission.ModeDefault, permission.ModeAcceptEdits}
	twins := 0
	rapid.Check(tt, func(t *rapid.T) {
		pc := f.context(tt, rapid.SampledFrom(modes).Draw(t, "mode"), rapid.SampledFrom(ruleSets).Draw(t, "rules")...)
		n := rapid.IntRange(2, 6).Draw(t, "n")
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteString(rapid.SampledFrom(propSeps).Draw(t, "sep"))
			}
			b.WriteString(rapid.SampledFrom(parts).Draw(t, "part"))
		}
		cmd := b.String()
		k := newChecker(context.Background(), pc, cmd)
		d := k.run()
		if k.memo.a != nil && k.evals < len(k.memo.a.Commands) {
			twins++
		}
		decidesAsTraced(t, tt, pc, cmd, d, "no twins")
	})
	if twins == 0 {
		tt.Error("no command line had a twin: the property checked nothing")
	}
}

// TestPropertyCheckCacheDecidesAsUncached: the read and write checks a command line caches
// (a short list, then a map past maxCheckList) give the decision the uncached checks of a
// traced run give, for command lines naming up to 40 paths, many of them more than once.
func TestPropertyCheckCacheDecidesAsUncached(tt *testing.T) {
	f := newFixture(tt)
	paths := []string{"a.txt", "sub/a.txt", ".env", "README.md", "src/main.go", "notes.txt", "data/big.txt", "link-out/secret",
		"link-rc", "../outside/secret", "~/.bashrc", "~/.ssh/id_rsa", ".git/config", "new.txt", "opts/a.txt", "x1", "x2", "x3",
		"x4", "x5", "x6", "x7", "x8", "x9", "src", "sub", "/etc/passwd", ".claude/settings.json"}
	verbs := []string{"cat %s", "wc -l %s", "echo x > %s", "touch %s", "rm %s", "grep k %s", "mytool %s", "ls %s"}
	ruleSets := [][]string{
		{"allow:Bash(cat:*)", "deny:Read(./sub/a.txt)"},
		{"allow:Bash(*)", "ask:Read(./x5)", denyEnv, "allow:Edit(./x*)"},
		{"allow:Bash(*)"},
	}
	big := 0
	rapid.Check(tt, func(t *rapid.T) {
		pc := f.context(tt, permission.ModeDefault, rapid.SampledFrom(ruleSets).Draw(t, "rules")...)
		n := rapid.IntRange(1, 40).Draw(t, "n")
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteString(" && ")
			}
			fmt.Fprintf(&b, rapid.SampledFrom(verbs).Draw(t, "verb"), rapid.SampledFrom(paths).Draw(t, "path"))
		}
		cmd := b.String()
		k := newChecker(context.Background(), pc, cmd)
		d := k.run()
		if len(k.paths.checks) > 0 {
			big++
		}
		decidesAsTraced(t, tt, pc, cmd, d, "no cache")
	})
	if big == 0 {
		tt.Error("no command line checked more paths than the list holds: the map was never tried")
	}
}

// TestSlotsOnlyForTheAnalysis: a command outside the analysis, whatever its index, never reads
// or writes the slot of the command of the analysis at that index.
func TestSlotsOnlyForTheAnalysis(t *testing.T) {
	f := newFixture(t)
	pc := f.context(t, permission.ModeDefault, "allow:Bash(make test)", "deny:Bash(rm -rf x)")
	k := newChecker(context.Background(), pc, "make test && rm -f -r x")
	if d := k.run(); d.Behavior != permission.Deny {
		t.Fatalf("decision = %s, want deny", d.Behavior)
	}
	first := k.memo.a.Commands[0]
	want, ok := k.memo.result(first)
	if !ok || want.v != vAllow {
		t.Fatalf("verdict of %q = %v, %v; want allow", first.Text, want.v, ok)
	}
	wantNorm, normed := k.memo.normOf(k.memo.a.Commands[1])
	if !normed || wantNorm.path != "rm" {
		t.Fatalf("normal form of %q = %+v, %v", k.memo.a.Commands[1].Text, wantNorm, normed)
	}
	for i := range k.memo.a.Commands {
		stranger := *k.memo.a.Commands[i] // same fields and index, another command
		if _, ok := k.memo.result(&stranger); ok {
			t.Fatalf("a copy of command %d has a verdict before one is set", i)
		}
		k.memo.setResult(&stranger, result{v: vSafety})
		k.memo.setNorm(&stranger, normForm{path: "stranger"})
		if r, _ := k.memo.result(&stranger); r.v != vSafety {
			t.Fatalf("a copy of command %d: verdict %v, want the one set", i, r.v)
		}
		if nf, _ := k.memo.normOf(&stranger); nf.path != "stranger" {
			t.Fatalf("a copy of command %d: normal form %q, want the one set", i, nf.path)
		}
	}
	if r, _ := k.memo.result(first); r.v != want.v {
		t.Fatalf("verdict of %q became %v", first.Text, r.v)
	}
	if nf, _ := k.memo.normOf(k.memo.a.Commands[1]); nf.path != wantNorm.path {
		t.Fatalf("normal form of %q became %q", k.memo.a.Commands[1].Text, nf.path)
	}
}
