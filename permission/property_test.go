package permission

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// pathTool is a file tool as the engine sees it: its own check is the shared read or write check.
type pathTool struct {
	name  string
	write bool
}

func (p pathTool) Name() string { return p.name }
func (p pathTool) CheckPermissions(ctx context.Context, pc *Context, input any) Decision {
	if p.write {
		return pc.CheckWrite(ctx, input.(string))
	}
	return pc.CheckRead(ctx, input.(string))
}

var (
	propTools = []pathTool{{"Read", false}, {"Edit", true}, {"Write", true}}
	propPaths = []string{"a.txt", "src/main.go", ".env", "deep/x/.env", ".git/config", ".claude/settings.json", "new.txt", "src/new.go"}
	propRules = []string{"Read", "Edit", "Write", "Read(.env)", "Read(src/**)", "Edit(src/**)", "Edit(**)", "Read(**)",
		"Edit(.git/**)", "Read(/a.txt)", "Edit(new.txt)", "Edit(/.claude/**)", "Read(*.go)", "Edit(deep/**)"}
	propModes = []Mode{ModeDefault, ModeAcceptEdits, ModePlan, ModeDontAsk, ModeBypass}
)

type propCase struct {
	mode  Mode
	tool  pathTool
	path  string
	rules []Rule
}

func drawRule(t *rapid.T, label string) Rule {
	return Rule{
		Value:    ParseRule(rapid.SampledFrom(propRules).Draw(t, label+"value")),
		Behavior: rapid.SampledFrom([]Behavior{Allow, Ask, Deny}).Draw(t, label+"behavior"),
		Source:   rapid.SampledFrom(Sources).Draw(t, label+"source"),
	}
}

func drawCase(t *rapid.T) propCase {
	c := propCase{
		mode: rapid.SampledFrom(propModes).Draw(t, "mode"),
		tool: rapid.SampledFrom(propTools).Draw(t, "tool"),
		path: rapid.SampledFrom(propPaths).Draw(t, "path"),
	}
	n := rapid.IntRange(0, 6).Draw(t, "nrules")
	for i := range n {
		c.rules = append(c.rules, drawRule(t, "rule"+string(rune('a'+i))))
	}
	return c
}

func propProject(t *testing.T) string {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"a.txt", "src/main.go", ".env", "deep/x/.env", ".git/config", ".claude/settings.json"} {
		writeFile(t, filepath.Join(dir, p))
	}
	return dir
}

func decide(t *rapid.T, proj string, c propCase) Decision {
	pc, err := New(Config{Mode: c.mode, Cwd: proj, Home: proj, Rules: c.rules, BypassAvailable: c.mode == ModeBypass})
	if err != nil {
		t.Fatal(err)
	}
	var e Engine
	d, err := e.Decide(context.Background(), pc, c.tool, c.path)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// The tool-wide or path rule that the case's tool and path are covered by, for behaviour b.
func covered(proj string, c propCase, b Behavior) bool {
	pc, _ := New(Config{Mode: c.mode, Cwd: proj, Home: proj, Rules: c.rules})
	if pc.ToolWideRule(b, c.tool.name) != nil {
		return true
	}
	abs := filepath.Join(proj, c.path)
	forms := pathForms(context.Background(), abs)
	ruleTools := []string{"Read"}
	if c.tool.write {
		ruleTools = []string{"Edit"}
		if b == Deny {
			ruleTools = append(ruleTools, "Read")
		}
	}
	for _, tool := range ruleTools {
		if pc.matchAny(pc.ContentRules(b, tool), forms) != nil {
			return true
		}
	}
	return false
}

func TestPropertyDenyAlwaysDenies(t *testing.T) {
	proj := propProject(t)
	rapid.Check(t, func(t *rapid.T) {
		c := drawCase(t)
		if !covered(proj, c, Deny) {
			return
		}
		if d := decide(t, proj, c); d.Behavior != Deny {
			t.Fatalf("a matching deny rule must deny in mode %s: %s %s got %s (%s)", c.mode, c.tool.name, c.path, d.Behavior, d.Message)
		}
	})
}

func TestPropertyAskRuleAsks(t *testing.T) {
	proj := propProject(t)
	rapid.Check(t, func(t *rapid.T) {
		c := drawCase(t)
		if covered(proj, c, Deny) || !covered(proj, c, Ask) {
			return
		}
		d := decide(t, proj, c)
		want := Ask
		if c.mode == ModeDontAsk {
			want = Deny
		}
		if d.Behavior != want {
			t.Fatalf("an ask rule in mode %s: got %s, want %s", c.mode, d.Behavior, want)
		}
	})
}

func TestPropertyDontAskNeverAsks(t *testing.T) {
	proj := propProject(t)
	rapid.Check(t, func(t *rapid.T) {
		c := drawCase(t)
		c.mode = ModeDontAsk
		if d := decide(t, proj, c); d.Behavior == Ask || d.Behavior == Passthrough {
			t.Fatalf("dontAsk returned %s", d.Behavior)
		}
	})
}

func TestPropertyProtectedWriteNeedsSessionRule(t *testing.T) {
	proj := propProject(t)
	rapid.Check(t, func(t *rapid.T) {
		c := drawCase(t)
		c.tool = pathTool{"Edit", true}
		c.path = rapid.SampledFrom([]string{".git/config", ".claude/settings.json", ".reins/settings.json", ".GIT/x", "sub/.vscode/tasks.json", ".bashrc"}).Draw(t, "protected")
		c.rules = slices.DeleteFunc(c.rules, func(r Rule) bool { return r.Source == SourceSession })
		if d := decide(t, proj, c); d.Behavior == Allow {
			t.Fatalf("protected %s allowed in mode %s by %v", c.path, c.mode, d.Reason)
		}
	})
}

func TestPropertyAllowNeverTurnsDenyIntoAllow(t *testing.T) {
	proj := propProject(t)
	rapid.Check(t, func(t *rapid.T) {
		c := drawCase(t)
		before := decide(t, proj, c)
		// A deny that dontAsk made of an ask is meant to turn into allow once a rule allows
		// the call; the property is about denials by rules and checks.
		if before.Behavior != Deny || before.Reason.Type == ReasonMode {
			return
		}
		extra := drawRule(t, "extra")
		extra.Behavior = Allow
		c.rules = append(c.rules, extra)
		if after := decide(t, proj, c); after.Behavior != Deny {
			t.Fatalf("adding %s turned deny into %s", extra.Value, after.Behavior)
		}
	})
}

func TestPropertyRuleOrderIrrelevant(t *testing.T) {
	proj := propProject(t)
	rapid.Check(t, func(t *rapid.T) {
		c := drawCase(t)
		before := decide(t, proj, c)
		perm := rapid.Permutation(c.rules).Draw(t, "perm")
		c.rules = perm
		if after := decide(t, proj, c); after.Behavior != before.Behavior {
			t.Fatalf("reordering rules changed %s to %s", before.Behavior, after.Behavior)
		}
	})
}

// TestPropJoinClean: the one-pass join is what cleaning the join gives, for any clean
// directory (as the context's cwd and home are) and any path, clean or not, empty or not.
func TestPropJoinClean(t *testing.T) {
	part := rapid.SampledFrom([]string{"", "/", "a", "..", ".", "~", "b/", "//", "./c", "../..", "x y", "é", "...", "README.md", ".git"})
	path := rapid.Custom(func(t *rapid.T) string {
		var s string
		for _, p := range rapid.SliceOfN(part, 0, 6).Draw(t, "parts") {
			s += p
		}
		return s
	})
	rapid.Check(t, func(t *rapid.T) {
		dir, p := path.Draw(t, "dir"), path.Draw(t, "p")
		if dir != "" {
			dir = filepath.Clean(dir) // "" stays: a context without a home has home ""
		}
		if got, want := joinClean(dir, p), filepath.Clean(filepath.Join(dir, p)); got != want {
			t.Fatalf("joinClean(%q, %q) = %q, want %q", dir, p, got, want)
		}
	})
}

// approveAll is a classifier talked into approving everything.
type approveAll struct{}

func (approveAll) Classify(context.Context, ClassifyRequest) (Verdict, error) {
	return Verdict{Reason: "looks fine"}, nil
}

// TestPropertyAutoKeepsAsksAndSafetyChecks: whatever the classifier says and whatever the tool
// (the safe-tool list included), auto mode never allows a call that an ask rule, a safety
// check or a deny covers in default mode.
func TestPropertyAutoKeepsAsksAndSafetyChecks(t *testing.T) {
	proj := propProject(t)
	tools := append(slices.Clone(propTools), pathTool{"Grep", false}, pathTool{"Glob", false}, pathTool{"NotebookEdit", true})
	classifiers := []Classifier{nil, approveAll{}, fixedClassifier{v: Verdict{Block: true}}, fixedClassifier{err: context.DeadlineExceeded}}
	rapid.Check(t, func(t *rapid.T) {
		c := drawCase(t)
		c.tool = rapid.SampledFrom(tools).Draw(t, "tool")
		c.mode = ModeDefault
		before := decide(t, proj, c)
		if before.Behavior != Deny && !before.isAskRule() && !before.isSafetyAsk() {
			return
		}
		pc, err := New(Config{Mode: ModeAuto, Cwd: proj, Home: proj, Rules: c.rules})
		if err != nil {
			t.Fatal(err)
		}
		e := Engine{Classifier: rapid.SampledFrom(classifiers).Draw(t, "classifier")}
		d, err := e.Decide(context.Background(), pc, c.tool, c.path)
		if err != nil {
			t.Fatal(err)
		}
		if d.Behavior == Allow {
			t.Fatalf("auto allowed %s %s, which default mode answers %s (%s): %s", c.tool.name, c.path, before.Behavior, before.Reason, d.Reason)
		}
	})
}
