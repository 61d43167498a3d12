package permission

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// fakeTool is a Checker whose own check returns a fixed decision.
type fakeTool struct {
	name     string
	decision Decision
	interact bool
	panics   bool
}

func (f fakeTool) Name() string { return f.name }
func (f fakeTool) CheckPermissions(_ context.Context, pc *Context, _ any) Decision {
	if f.panics {
		panic("boom")
	}
	return f.decision
}
func (f fakeTool) RequiresUserInteraction() bool { return f.interact }

func rules(b Behavior, src Source, values ...string) []Rule {
	var out []Rule
	for _, v := range values {
		out = append(out, Rule{Value: ParseRule(v), Behavior: b, Source: src})
	}
	return out
}

func mustNew(t testing.TB, cfg Config) *Context {
	t.Helper()
	if cfg.Cwd == "" {
		cfg.Cwd = t.TempDir()
	}
	pc, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return pc
}

var (
	pass       = Decision{Behavior: Passthrough}
	toolAllow  = Decision{Behavior: Allow}
	toolDeny   = Decision{Behavior: Deny, Message: "no", Reason: &Reason{Type: ReasonOther}}
	plainAsk   = Decision{Behavior: Ask, Message: "ask", Reason: &Reason{Type: ReasonWorkingDir}}
	safetyAsk  = Decision{Behavior: Ask, Message: "sensitive", Reason: &Reason{Type: ReasonSafetyCheck, ClassifierApprovable: true}}
	askRuleAsk = Decision{Behavior: Ask, Message: "rule", Reason: &Reason{Type: ReasonRule, Rule: &Rule{Value: RuleValue{Tool: "X", Content: "c"}, Behavior: Ask}}}
)

func TestPipeline(t *testing.T) {
	tests := []struct {
		name     string
		mode     Mode
		bypassOK bool
		rules    []Rule
		tool     fakeTool
		want     Behavior
		reason   ReasonType
	}{
		{"tool-wide deny beats everything", ModeBypass, true, rules(Deny, SourceUser, "X"), fakeTool{name: "X", decision: toolAllow}, Deny, ReasonRule},
		{"tool-wide deny beats allow of another source", ModeDefault, false, append(rules(Allow, SourcePolicy, "X"), rules(Deny, SourceSession, "X")...), fakeTool{name: "X", decision: pass}, Deny, ReasonRule},
		{"tool-wide ask in bypass", ModeBypass, true, rules(Ask, SourceUser, "X"), fakeTool{name: "X", decision: toolAllow}, Ask, ReasonRule},
		{"tool deny in bypass", ModeBypass, true, nil, fakeTool{name: "X", decision: toolDeny}, Deny, ReasonOther},
		{"user interaction in bypass", ModeBypass, true, nil, fakeTool{name: "X", decision: plainAsk, interact: true}, Ask, ReasonWorkingDir},
		{"content ask rule in bypass", ModeBypass, true, nil, fakeTool{name: "X", decision: askRuleAsk}, Ask, ReasonRule},
		{"safety check in bypass", ModeBypass, true, nil, fakeTool{name: "X", decision: safetyAsk}, Ask, ReasonSafetyCheck},
		{"plain ask in bypass allows", ModeBypass, true, nil, fakeTool{name: "X", decision: plainAsk}, Allow, ReasonMode},
		{"plan with bypass available allows", ModePlan, true, nil, fakeTool{name: "X", decision: plainAsk}, Allow, ReasonMode},
		{"plan without bypass asks", ModePlan, false, nil, fakeTool{name: "X", decision: plainAsk}, Ask, ReasonWorkingDir},
		{"tool-wide allow", ModeDefault, false, rules(Allow, SourceProject, "X"), fakeTool{name: "X", decision: pass}, Allow, ReasonRule},
		{"tool-wide allow over plain ask", ModeDefault, false, rules(Allow, SourceProject, "X"), fakeTool{name: "X", decision: plainAsk}, Allow, ReasonRule},
		{"tool-wide allow does not beat safety", ModeDefault, false, rules(Allow, SourceProject, "X"), fakeTool{name: "X", decision: safetyAsk}, Ask, ReasonSafetyCheck},
		{"passthrough asks", ModeDefault, false, nil, fakeTool{name: "X", decision: pass}, Ask, ""},
		{"tool allow", ModeDefault, false, nil, fakeTool{name: "X", decision: toolAllow}, Allow, ""},
		{"panicking check asks", ModeDefault, false, nil, fakeTool{name: "X", panics: true}, Ask, ReasonOther},
		{"panicking check in bypass allows", ModeBypass, true, nil, fakeTool{name: "X", panics: true}, Allow, ReasonMode},
		{"dontAsk denies asks", ModeDontAsk, false, nil, fakeTool{name: "X", decision: pass}, Deny, ReasonMode},
		{"dontAsk keeps allows", ModeDontAsk, false, rules(Allow, SourceUser, "X"), fakeTool{name: "X", decision: pass}, Allow, ReasonRule},
		{"mcp server deny", ModeDefault, false, rules(Deny, SourceUser, "mcp__srv"), fakeTool{name: "mcp__srv__t", decision: pass}, Deny, ReasonRule},
		{"mcp server wildcard allow", ModeDefault, false, rules(Allow, SourceUser, "mcp__srv__*"), fakeTool{name: "mcp__srv__t", decision: pass}, Allow, ReasonRule},
		{"mcp other server", ModeDefault, false, rules(Allow, SourceUser, "mcp__srv"), fakeTool{name: "mcp__other__t", decision: pass}, Ask, ""},
		{"mcp glob deny all", ModeBypass, false, rules(Deny, SourceUser, "mcp__*"), fakeTool{name: "mcp__srv__t", decision: pass}, Deny, ReasonRule},
		{"mcp glob ask prefix", ModeBypass, false, rules(Ask, SourceUser, "mcp__github__get_*"), fakeTool{name: "mcp__github__get_issue", decision: pass}, Ask, ReasonRule},
		{"mcp glob allow prefix", ModeDefault, false, rules(Allow, SourceUser, "mcp__github__get_*"), fakeTool{name: "mcp__github__get_issue", decision: pass}, Allow, ReasonRule},
		{"mcp glob allow prefix other tool", ModeDefault, false, rules(Allow, SourceUser, "mcp__github__get_*"), fakeTool{name: "mcp__github__delete_repo", decision: pass}, Ask, ""},
		{"mcp glob deny beats server allow", ModeDefault, false, append(rules(Allow, SourceUser, "mcp__github"), rules(Deny, SourceProject, "mcp__github__delete_*")...), fakeTool{name: "mcp__github__delete_repo", decision: pass}, Deny, ReasonRule},
		{"auto without classifier denies", ModeAuto, false, nil, fakeTool{name: "X", decision: pass}, Deny, ReasonClassifier},
		{"auto safe tool", ModeAuto, false, nil, fakeTool{name: "Read", decision: plainAsk}, Allow, ReasonClassifier},
		{"auto keeps non-approvable safety ask", ModeAuto, false, nil, fakeTool{name: "Edit", decision: Decision{Behavior: Ask, Reason: &Reason{Type: ReasonSafetyCheck}}}, Ask, ReasonSafetyCheck},
		{"auto keeps approvable safety ask", ModeAuto, false, nil, fakeTool{name: "Edit", decision: safetyAsk}, Ask, ReasonSafetyCheck},
		{"auto keeps a content ask rule on a safe tool", ModeAuto, false, nil, fakeTool{name: "Read", decision: askRuleAsk}, Ask, ReasonRule},
		{"auto keeps a tool-wide ask on a safe tool", ModeAuto, false, rules(Ask, SourceProject, "Grep"), fakeTool{name: "Grep", decision: toolAllow}, Ask, ReasonRule},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pc := mustNew(t, Config{Mode: tt.mode, Rules: tt.rules, BypassAvailable: tt.bypassOK})
			var e Engine
			d, err := e.Decide(context.Background(), pc, tt.tool, nil)
			if err != nil {
				t.Fatal(err)
			}
			if d.Behavior != tt.want {
				t.Fatalf("behavior = %s, want %s (decision %+v)", d.Behavior, tt.want, d)
			}
			var got ReasonType
			if d.Reason != nil {
				got = d.Reason.Type
			}
			if got != tt.reason {
				t.Errorf("reason = %q, want %q", got, tt.reason)
			}
			if d.Behavior != Allow && d.Message == "" {
				t.Errorf("a %s decision has no message", d.Behavior)
			}
		})
	}
}

type fixedClassifier struct {
	v   Verdict
	err error
}

func (c fixedClassifier) Classify(context.Context, ClassifyRequest) (Verdict, error) {
	return c.v, c.err
}

func TestAutoDenialLimits(t *testing.T) {
	pc := mustNew(t, Config{Mode: ModeAuto})
	e := &Engine{Classifier: fixedClassifier{v: Verdict{Block: true, Reason: "risky"}}}
	tool := fakeTool{name: "X", decision: pass}
	for i := 1; i <= 2; i++ {
		d, err := e.Decide(context.Background(), pc, tool, nil)
		if err != nil || d.Behavior != Deny {
			t.Fatalf("denial %d: %+v, %v", i, d, err)
		}
	}
	d, err := e.Decide(context.Background(), pc, tool, nil)
	if err != nil || d.Behavior != Ask {
		t.Fatalf("third denial should fall back to ask: %+v, %v", d, err)
	}
	headless := pc.WithAvoidPrompts(true)
	if _, err := e.Decide(context.Background(), headless, tool, nil); !errors.Is(err, ErrTooManyDenials) {
		t.Fatalf("headless past the limit: err = %v, want ErrTooManyDenials", err)
	}
	// An allow resets the consecutive counter.
	e2 := &Engine{Classifier: fixedClassifier{v: Verdict{Block: true}}}
	for range 2 {
		e2.Decide(context.Background(), pc, tool, nil)
	}
	e2.Decide(context.Background(), pc, fakeTool{name: "Y", decision: toolAllow}, nil)
	if d, _ := e2.Decide(context.Background(), pc, tool, nil); d.Behavior != Deny {
		t.Fatalf("after an allow the counter restarts; got %s", d.Behavior)
	}
}

// TestAutoClassifierError: no verdict is a block whose message names the failure.
func TestAutoClassifierError(t *testing.T) {
	pc := mustNew(t, Config{Mode: ModeAuto})
	tool := fakeTool{name: "X", decision: pass}
	e := &Engine{Classifier: fixedClassifier{err: errors.New("offline")}}
	d, _ := e.Decide(context.Background(), pc, tool, nil)
	if d.Behavior != Deny || d.Reason.Type != ReasonClassifier || !strings.Contains(d.Message, "offline") {
		t.Fatalf("classifier error must fail closed, naming the failure: %+v", d)
	}
	e = &Engine{Classifier: fixedClassifier{v: Verdict{Reason: "fine"}}}
	if d, _ := e.Decide(context.Background(), pc, tool, nil); d.Behavior != Allow {
		t.Fatalf("classifier allow: %+v", d)
	}
}

// TestAutoDenialLimitAbortsWithoutAsker: a run with no one to ask (reins -p) aborts at the
// limit, as a prompt-less context does; with an asker the person is asked.
func TestAutoDenialLimitAbortsWithoutAsker(t *testing.T) {
	pc := mustNew(t, Config{Mode: ModeAuto})
	tool := fakeTool{name: "X", decision: pass}
	for _, fail := range []bool{false, true} {
		c := fixedClassifier{v: Verdict{Block: true, Reason: "risky"}}
		if fail {
			c = fixedClassifier{err: errors.New("garbage")}
		}
		e := &Engine{Classifier: c}
		for i := 1; i < MaxConsecutiveDenials; i++ {
			if d, err := e.Authorize(context.Background(), pc, tool, nil, nil); err != nil || d.Behavior != Deny {
				t.Fatalf("failure=%v block %d: %+v %v", fail, i, d, err)
			}
		}
		if _, err := e.Authorize(context.Background(), pc, tool, nil, nil); !errors.Is(err, ErrTooManyDenials) {
			t.Fatalf("failure=%v: err = %v, want ErrTooManyDenials", fail, err)
		}
		a := &recordingAsker{answer: Decision{Behavior: Deny}}
		e = &Engine{Classifier: c}
		for range MaxConsecutiveDenials {
			if _, err := e.Authorize(context.Background(), pc, tool, nil, a); err != nil {
				t.Fatalf("failure=%v with an asker: %v", fail, err)
			}
		}
		if a.asked != 1 {
			t.Fatalf("failure=%v: asked %d times, want once, at the limit", fail, a.asked)
		}
	}
}

type recordingAsker struct {
	answer Decision
	asked  int
}

func (a *recordingAsker) Ask(context.Context, AskRequest) (Decision, error) {
	a.asked++
	return a.answer, nil
}

func TestAuthorize(t *testing.T) {
	pc := mustNew(t, Config{})
	var e Engine
	tool := fakeTool{name: "X", decision: pass}
	d, err := e.Authorize(context.Background(), pc, tool, nil, nil)
	if err != nil || d.Behavior != Deny || d.Message != RequestMessage("X") {
		t.Fatalf("headless ask should become a deny with the ask message: %+v %v", d, err)
	}
	a := &recordingAsker{answer: Decision{Behavior: Allow}}
	if d, _ := e.Authorize(context.Background(), pc, tool, nil, a); d.Behavior != Allow || a.asked != 1 {
		t.Fatalf("asker allow: %+v asked=%d", d, a.asked)
	}
	parent := &recordingAsker{answer: Decision{Behavior: Deny, Message: "parent says no"}}
	e.ParentAsker = parent
	bubble := pc.WithMode(ModeBubble)
	if d, _ := e.Authorize(context.Background(), bubble, tool, nil, a); d.Behavior != Deny || parent.asked != 1 || a.asked != 1 {
		t.Fatalf("bubble must hand the ask to the parent: %+v parent=%d own=%d", d, parent.asked, a.asked)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Decide(ctx, pc, tool, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled context: err = %v", err)
	}
}

func TestAvoidPromptsDenies(t *testing.T) {
	pc := mustNew(t, Config{AvoidPrompts: true})
	var e Engine
	d, _ := e.Decide(context.Background(), pc, fakeTool{name: "X", decision: pass}, nil)
	if d.Behavior != Deny || d.Reason.Type != ReasonAsyncAgent {
		t.Fatalf("prompt-less context: %+v", d)
	}
}

func TestRuleBased(t *testing.T) {
	pc := mustNew(t, Config{Mode: ModeBypass, Rules: rules(Deny, SourceUser, "X")})
	var e Engine
	if d := e.RuleBased(context.Background(), pc, fakeTool{name: "X", decision: toolAllow}, nil); d.Behavior != Deny {
		t.Fatalf("hook allow must still meet deny rules: %+v", d)
	}
	pc = mustNew(t, Config{})
	if d := e.RuleBased(context.Background(), pc, fakeTool{name: "X", decision: plainAsk}, nil); d.Behavior != Passthrough {
		t.Fatalf("plain ask is not a rule-based objection: %+v", d)
	}
}

func TestTrace(t *testing.T) {
	pc := mustNew(t, Config{Rules: rules(Allow, SourceLocal, "X")})
	var tr Trace
	var e Engine
	e.Decide(WithTrace(context.Background(), &tr), pc, fakeTool{name: "X", decision: pass}, nil)
	steps := tr.Steps()
	if len(steps) == 0 || steps[len(steps)-1].Name != "2b tool-wide allow" || steps[len(steps)-1].Rule == nil {
		t.Fatalf("trace does not end at the deciding rule: %+v", steps)
	}
}

func TestTraceNamesThePolicyVersion(t *testing.T) {
	pc := mustNew(t, Config{Rules: rules(Deny, SourcePolicy, "X")})
	e := Engine{PolicyVersion: "42"}
	for name, decide := range map[string]func(ctx context.Context){
		"Decide":    func(ctx context.Context) { e.Decide(ctx, pc, fakeTool{name: "X", decision: pass}, nil) },
		"RuleBased": func(ctx context.Context) { e.RuleBased(ctx, pc, fakeTool{name: "X", decision: pass}, nil) },
	} {
		var tr Trace
		decide(WithTrace(context.Background(), &tr))
		steps := tr.Steps()
		if len(steps) == 0 || steps[0].Name != "policy bundle" || steps[0].Detail != "42" {
			t.Errorf("%s: the trace does not begin with the policy bundle's version: %+v", name, steps)
		}
	}
}

func TestAutoTotalDenialLimit(t *testing.T) {
	pc := mustNew(t, Config{Mode: ModeAuto})
	e := &Engine{Classifier: fixedClassifier{v: Verdict{Block: true, Reason: "risky"}}}
	denied, allowed := fakeTool{name: "X", decision: pass}, fakeTool{name: "Y", decision: toolAllow}
	ctx := context.Background()
	// Two denials and an allow, repeatedly: never three in a row, so only the total counts.
	var last Decision
	for i := 1; i <= MaxTotalDenials; i++ {
		last, _ = e.Decide(ctx, pc, denied, nil)
		if i < MaxTotalDenials && last.Behavior != Deny {
			t.Fatalf("denial %d fell back to %s before the total limit", i, last.Behavior)
		}
		if i%2 == 0 {
			e.Decide(ctx, pc, allowed, nil)
		}
	}
	if last.Behavior != Ask || !strings.Contains(last.Message, "actions were blocked by auto mode this session") {
		t.Fatalf("denial %d: %s %q, want the total-limit ask", MaxTotalDenials, last.Behavior, last.Message)
	}
	// The total counter starts again after the fallback.
	if d, _ := e.Decide(ctx, pc, denied, nil); d.Behavior != Deny {
		t.Fatalf("after the fallback: %s, want deny", d.Behavior)
	}
}
