package bashrules

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sync"
	"testing"

	"pgregory.net/rapid"

	"github.com/reinsdev/reins/permission"
)

// suspiciousFiles are the files named with suspicious elements the property plants.
var suspiciousFiles = map[bool][]string{
	false: {"...", "x.", "sub/.../a.txt", ".git/...", "src/.../x"},
	true:  nil, // Windows names "..." and "x." as "." and "x"
}[runtime.GOOS == "windows"]

// TestPropertySuspiciousProbesDecideAsChecked: a probe of a suspicious path (go vet ./...,
// mytool a/.../b, make x.) is skipped without looking at the file or the rules; the decision
// is the one a traced run gives, where every probe runs both checks. Files named "..." and
// "x." exist where the system can hold them (not on Windows, which drops trailing dots: the
// reason they are suspicious), and rules name them, so that a skipped check had something to
// find.
func TestPropertySuspiciousProbesDecideAsChecked(tt *testing.T) {
	f := newFixture(tt)
	for _, p := range suspiciousFiles {
		full := filepath.Join(f.proj, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			tt.Fatal(err)
		}
		if err := os.WriteFile(full, nil, 0o644); err != nil {
			tt.Fatal(err)
		}
	}
	words := []string{"./...", "...", "./src/...", "sub/.../a.txt", "x.", "x", ".git/...", ".git/config", ".env", "src",
		"test", "./.env.", "~/...", "../...", "a/b/...", "./.claude/settings.json", "src/.../x", "....", "//srv/share/x",
		"nul", "a~1.txt", "src/", "README.md"}
	verbs := []string{"go vet %s", "go test %s", "mytool %s", "make %s", "mytool --out=%s", "mytool @%s", "npm run %s"}
	ruleSets := [][]string{
		{"allow:Bash(*)", "deny:Read(./...)", "ask:Read(**/x.)", denyEnv},
		{"allow:Bash(go vet *)", "allow:Bash(make:*)", "deny:Read(**/.../**)", "ask:Read(./...)"},
		{"allow:Bash(*)", "deny:Read(//**)"},
		{"allow:Bash(*)"},
	}
	modes := []permission.Mode{permission.ModeDefault, permission.ModeAcceptEdits}
	suspicious, plain := 0, 0
	rapid.Check(tt, func(t *rapid.T) {
		pc := f.context(tt, rapid.SampledFrom(modes).Draw(t, "mode"), rapid.SampledFrom(ruleSets).Draw(t, "rules")...)
		n := rapid.IntRange(1, 4).Draw(t, "n")
		cmd := ""
		for i := range n {
			if i > 0 {
				cmd += " && "
			}
			w := rapid.SampledFrom(words).Draw(t, "word")
			if abs, err := pc.ResolvePath(w); err == nil && permission.SuspiciousPath(abs) != "" {
				suspicious++
			} else {
				plain++
			}
			cmd += fmt.Sprintf(rapid.SampledFrom(verbs).Draw(t, "verb"), w)
		}
		d := Check(context.Background(), pc, cmd)
		decidesAsTraced(t, tt, pc, cmd, d, "every probe checked")
	})
	if suspicious == 0 || plain == 0 {
		tt.Errorf("suspicious probes %d, others %d: the property compared only one kind", suspicious, plain)
	}
}

// TestReasonsAreTheirOwn: the reasons of one decision's parts are cut from one chunk, but each
// part has its own, so that changing one changes no other.
func TestReasonsAreTheirOwn(t *testing.T) {
	f := newFixture(t)
	pc := f.context(t, permission.ModeDefault, "allow:Bash(make test)", "allow:Bash(npm run build:*)")
	cmd := "git status && make test && npm run build && ls src && wc -l README.md && cat README.md && head -1 README.md"
	d := Check(context.Background(), pc, cmd)
	if d.Behavior != permission.Allow || d.Reason == nil {
		t.Fatalf("%q = %s, want allow with a reason", cmd, explainNoTrace(d))
	}
	subs := d.Reason.Subresults
	if len(subs) < 7 {
		t.Fatalf("%d subresults, want 7", len(subs))
	}
	for i, s := range subs {
		if s.Decision.Reason == nil {
			t.Fatalf("part %d (%s) has no reason", i, s.Command)
		}
		before := *s.Decision.Reason
		s.Decision.Reason.Detail = "changed"
		for j, o := range subs {
			if j != i && o.Decision.Reason == s.Decision.Reason {
				t.Errorf("parts %d and %d share a reason", i, j)
			}
		}
		if d.Reason.Detail == "changed" {
			t.Errorf("changing part %d's reason changed the decision's", i)
		}
		*s.Decision.Reason = before
	}
}

// TestPropertyPooledCheckersDecideAsFresh: decisions made one after another with reused
// checkers equal the decisions of fresh checkers, and a decision already returned does not
// change when later decisions reuse its checker.
func TestPropertyPooledCheckersDecideAsFresh(tt *testing.T) {
	f := newFixture(tt)
	cmds := []string{benchCommand, "cat .env", "ls src && cat sub/a.txt", "rm -rf src", "echo x > notes.txt", "cd sub && cat a.txt",
		"git status", "make test || make test", "cat link-out/secret", "mytool ./x", "bash -c 'rm -rf /'", "echo $(cat .env)",
		"find . -exec cat {} +", "npm run build -- --prod", "a && b && c && d && e && f && g && h && i", "x=1; cat README.md | wc -l > out.txt"}
	ruleSets := [][]string{
		{"allow:Bash(npm run build:*)", "allow:Bash(go vet *)", "allow:Bash(make test)", "deny:Bash(*--force*)", denyEnv},
		{"allow:Bash(*)", "ask:Read(./sub/**)", "deny:Bash(rm:*)"},
		{"allow:Bash(cat:*)", "allow:Edit(./**)"},
	}
	rapid.Check(tt, func(t *rapid.T) {
		pc := f.context(tt, rapid.SampledFrom([]permission.Mode{permission.ModeDefault, permission.ModeAcceptEdits}).Draw(t, "mode"),
			rapid.SampledFrom(ruleSets).Draw(t, "rules")...)
		seq := rapid.SliceOfN(rapid.SampledFrom(cmds), 1, 8).Draw(t, "commands")
		pooled := make([]permission.Decision, len(seq))
		seen := make([]string, len(seq))
		for i, cmd := range seq {
			pooled[i] = Check(context.Background(), pc, cmd)
			seen[i] = explainNoTrace(pooled[i])
		}
		poolCheckers = false
		defer func() { poolCheckers = true }()
		for i, cmd := range seq {
			if now := explainNoTrace(pooled[i]); now != seen[i] {
				t.Fatalf("decision %d (%q) changed after later decisions:\nthen %s\nnow  %s", i, cmd, seen[i], now)
			}
			if fresh := Check(context.Background(), pc, cmd); !reflect.DeepEqual(fresh, pooled[i]) {
				t.Fatalf("decision %d (%q) with a reused checker %s\nwith a fresh one %s", i, cmd, explainNoTrace(pooled[i]), explainNoTrace(fresh))
			}
		}
	})
}

// TestConcurrentChecksDecideAsAlone: decisions made at the same time, on one context, by
// checkers taken from and returned to the pool by other goroutines, are those made one by
// one. Run with -race, it also finds a checker or its arrays shared between two decisions.
func TestConcurrentChecksDecideAsAlone(t *testing.T) {
	f := newFixture(t)
	pc := f.context(t, permission.ModeDefault, "allow:Bash(npm run build:*)", "allow:Bash(go vet *)", "allow:Bash(make test)",
		"deny:Bash(*--force*)", "ask:Read(./sub/**)", denyEnv)
	cmds := []string{benchCommand, "cat .env", "ls src && cat sub/a.txt", "rm -rf src", "echo x > notes.txt", "cd sub && cat a.txt",
		"git status", "make test || make test", "mytool ./x", "echo $(cat .env)", "npm run build -- --force"}
	want := make([]string, len(cmds))
	for i, cmd := range cmds {
		want[i] = explainNoTrace(Check(context.Background(), pc, cmd))
	}
	var wg sync.WaitGroup
	errs := make(chan string, 4*len(cmds))
	for g := range 4 {
		wg.Go(func() {
			for round := range 50 {
				i := (g + round) % len(cmds)
				if got := explainNoTrace(Check(context.Background(), pc, cmds[i])); got != want[i] {
					errs <- fmt.Sprintf("%q at the same time as others: %s\nalone: %s", cmds[i], got, want[i])
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestGuards: the commands that have succeeded whenever a command runs, through && chains,
// blocks and if conditions (the walker builds these lists from shared chunks).
func TestGuards(t *testing.T) {
	tests := []struct {
		src  string
		last string // the command whose guards are listed
		want []string
	}{
		{"a && b && c", "c", []string{"a", "b"}},
		{"a && b", "b", []string{"a"}},
		{"{ a && b; } && c", "c", []string{"a", "b"}},
		{"x && { a && b; } && c", "c", []string{"x", "a", "b"}},
		{"if a && b; then c; fi", "c", []string{"a", "b"}},
		{"x && if a; then c; fi", "c", []string{"x", "a"}},
		{"a || b && c", "c", nil},
		{"a; b && c", "c", []string{"b"}},
		{"a && (b) && c", "c", []string{"a"}},
		{"a && b | d && c", "c", []string{"a"}},
	}
	for _, tt := range tests {
		a, err := Analyze(tt.src)
		if err != nil {
			t.Fatalf("%q: %v", tt.src, err)
		}
		var got []string
		found := false
		for _, c := range a.Commands {
			if c.Text != tt.last {
				continue
			}
			found = true
			for _, g := range c.Guards {
				got = append(got, g.Text)
			}
		}
		if !found {
			t.Fatalf("%q: no command %q", tt.src, tt.last)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q: guards of %s = %q, want %q", tt.src, tt.last, got, tt.want)
		}
	}
}

// TestProbesAreEachCommandsOwn: the commands of one line lend their probes the same array;
// each command is judged by its own arguments only.
func TestProbesAreEachCommandsOwn(t *testing.T) {
	f := newFixture(t)
	pc := f.context(t, permission.ModeDefault, "allow:Bash(mytool:*)", denyEnv)
	_, reports := Explain(context.Background(), pc, "mytool .env && mytool README.md && mytool notes.txt")
	var got []string
	for _, r := range reports {
		got = append(got, r.Command+": "+r.Verdict)
	}
	want := []string{"mytool .env: deny", "mytool README.md: allow", "mytool notes.txt: allow"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("verdicts %q, want %q", got, want)
	}
}

// TestPropertyBytesOf: the set of a string's bytes, built two words at a time while the string
// is ASCII, is the set built byte by byte: for every byte alone, after "a" and after a
// non-ASCII byte, and for random strings.
func TestPropertyBytesOf(t *testing.T) {
	ref := func(s string) byteSet {
		var want byteSet
		for i := 0; i < len(s); i++ {
			want[s[i]>>6] |= 1 << (s[i] & 63)
		}
		return want
	}
	for c := range 256 {
		for _, s := range []string{string([]byte{byte(c)}), "a" + string([]byte{byte(c)}), "\xff" + string([]byte{byte(c)})} {
			if got := bytesOf(s); got != ref(s) {
				t.Fatalf("bytesOf(%q) = %x, want %x", s, got, ref(s))
			}
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		s := string(rapid.SliceOf(rapid.Byte()).Draw(t, "bytes"))
		if rapid.Bool().Draw(t, "text") {
			s = rapid.String().Draw(t, "text")
		}
		if got := bytesOf(s); got != ref(s) {
			t.Fatalf("bytesOf(%q) = %x, want %x", s, got, ref(s))
		}
	})
}
