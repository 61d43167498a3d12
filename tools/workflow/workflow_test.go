package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
)

// session is a fake agent loop's permission state: UpdatePermissions applies updates to it.
type session struct {
	mu sync.Mutex
	pc *permission.Context
}

func newSession(t *testing.T, cfg permission.Config) (*session, *tool.Env) {
	t.Helper()
	if cfg.Cwd == "" {
		cfg.Cwd = t.TempDir()
	}
	pc, err := permission.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := &session{pc: pc}
	env := &tool.Env{
		Permissions: func() *permission.Context {
			s.mu.Lock()
			defer s.mu.Unlock()
			return s.pc
		},
		UpdatePermissions: func(_ context.Context, updates ...permission.Update) error {
			s.mu.Lock()
			defer s.mu.Unlock()
			n, err := s.pc.Apply(updates...)
			if err != nil {
				return err
			}
			s.pc = n
			return nil
		},
		Values: map[any]any{},
	}
	return s, env
}

// call runs decode, validation and the call; failures before the call come back as errors.
func call(t *testing.T, tl tool.Tool, env *tool.Env, input string) (tool.Result, error) {
	t.Helper()
	in, err := tl.Decode(json.RawMessage(input))
	if err != nil {
		return tool.Result{}, err
	}
	if fail := tl.ValidateInput(context.Background(), in, env); fail != nil {
		return tool.Result{}, errors.New(fail.Message)
	}
	res, err := tl.Call(context.Background(), in, env)
	if err != nil {
		t.Fatalf("%s: %v", tl.Name(), err)
	}
	return res, nil
}

// decide runs the permission engine on a call.
func decide(t *testing.T, tl tool.Tool, pc *permission.Context, input string) permission.Decision {
	t.Helper()
	in, err := tl.Decode(json.RawMessage(input))
	if err != nil {
		t.Fatal(err)
	}
	var e permission.Engine
	d, err := e.Decide(context.Background(), pc, tl, in)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestTodoWrite(t *testing.T) {
	_, env := newSession(t, permission.Config{})
	tw := NewTodoWrite()
	res, err := call(t, tw, env, `{"todos":[{"content":"Run tests","status":"in_progress","activeForm":"Running tests"},{"content":"Fix bug","status":"pending","activeForm":"Fixing bug"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.TextOf(); got != todoResult {
		t.Errorf("result = %q", got)
	}
	want := []Todo{{"Run tests", StatusInProgress, "Running tests"}, {"Fix bug", StatusPending, "Fixing bug"}}
	if diff := cmp.Diff(want, Todos(env)); diff != "" {
		t.Errorf("stored list (-want +got):\n%s", diff)
	}
	if out := res.Output.(TodoWriteOutput); len(out.OldTodos) != 0 || len(out.NewTodos) != 2 {
		t.Errorf("output = %+v", out)
	}

	// All completed: the result reports the list, the session forgets it.
	res, err = call(t, tw, env, `{"todos":[{"content":"Run tests","status":"completed","activeForm":"Running tests"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if out := res.Output.(TodoWriteOutput); len(out.OldTodos) != 2 || len(out.NewTodos) != 1 {
		t.Errorf("output = %+v", out)
	}
	if got := Todos(env); len(got) != 0 {
		t.Errorf("list not cleared: %+v", got)
	}

	// Each Env has its own list.
	_, other := newSession(t, permission.Config{})
	if got := Todos(other); got != nil {
		t.Errorf("fresh session has todos %+v", got)
	}
}

func TestTodoWriteValidation(t *testing.T) {
	_, env := newSession(t, permission.Config{})
	for input, want := range map[string]string{
		`{"todos":[{"content":"","status":"pending","activeForm":"x"}]}`: "The parameter `todos[0].content` must be at least 1 character long",
		`{"todos":[{"content":"x","status":"done","activeForm":"x"}]}`:   "The parameter `todos[0].status` must be one of: pending, in_progress, completed",
		`{"todos":[{"content":"x","status":"pending"}]}`:                 "The required parameter `todos[0].activeForm` is missing",
		`{"todos":[{"content":"x","status":"pending","activeForm":""}]}`: "The parameter `todos[0].activeForm` must be at least 1 character long",
		`{}`: "The required parameter `todos` is missing",
	} {
		_, err := call(t, NewTodoWrite(), env, input)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", input, err, want)
		}
	}
}

func TestTodoWriteIsAlwaysAllowed(t *testing.T) {
	for _, mode := range []permission.Mode{permission.ModeDefault, permission.ModeDontAsk, permission.ModePlan} {
		s, _ := newSession(t, permission.Config{Mode: mode})
		if d := decide(t, NewTodoWrite(), s.pc, `{"todos":[]}`); d.Behavior != permission.Allow {
			t.Errorf("%s: %s", mode, d.Behavior)
		}
	}
	if !NewTodoWrite().Spec().Defer {
		t.Error("TodoWrite should be deferred")
	}
}

const twoQuestions = `{"questions":[
 {"question":"Which database?","header":"Database","options":[{"label":"Postgres","description":"relational"},{"label":"SQLite","description":"embedded"}]},
 {"question":"Which features?","header":"Features","multiSelect":true,"options":[{"label":"Auth","description":""},{"label":"Search","description":""},{"label":"Export","description":""}]}]}`

func TestAskUserQuestionValidation(t *testing.T) {
	_, env := newSession(t, permission.Config{})
	opt := func(l string) string { return `{"label":"` + l + `","description":"d"}` }
	q := func(text string, opts ...string) string {
		return `{"question":"` + text + `","header":"h","options":[` + strings.Join(opts, ",") + `]}`
	}
	for input, want := range map[string]string{
		`{"questions":[]}`: "The parameter `questions` needs at least 1 item",
		`{"questions":[` + strings.Repeat(q("q", opt("a"), opt("b"))+",", 4) + q("q5", opt("a"), opt("b")) + `]}`: "The parameter `questions` allows at most 4 items",
		`{"questions":[` + q("q", opt("a")) + `]}`:                                                                "The parameter `questions[0].options` needs at least 2 items",
		`{"questions":[` + q("q", opt("a"), opt("b"), opt("c"), opt("d"), opt("e")) + `]}`:                        "The parameter `questions[0].options` allows at most 4 items",
		`{"questions":[` + q("q", opt("a"), opt("b")) + "," + q("q", opt("c"), opt("d")) + `]}`:                   uniqueMessage,
		`{"questions":[` + q("q", opt("a"), opt("a")) + `]}`:                                                      uniqueMessage,
	} {
		_, err := call(t, NewAskUserQuestion(), env, input)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s:\n got %v\nwant %q", input, err, want)
		}
	}
	if _, err := call(t, NewAskUserQuestion(), env, twoQuestions); err != nil {
		t.Errorf("valid questions refused: %v", err)
	}
}

// answerer is an asker that answers AskUserQuestion the way a UI would.
type answerer struct{ answers map[string]string }

func (a answerer) Ask(_ context.Context, req permission.AskRequest) (permission.Decision, error) {
	in := req.Input.(AskUserQuestionInput)
	return permission.Decision{Behavior: permission.Allow, UpdatedInput: WithAnswers(in, a.answers)}, nil
}

func TestAskUserQuestionAlwaysAsks(t *testing.T) {
	ask := NewAskUserQuestion()
	for _, cfg := range []permission.Config{
		{Mode: permission.ModeDefault},
		{Mode: permission.ModeBypass},
		{Mode: permission.ModeAcceptEdits, Rules: []permission.Rule{{Value: permission.RuleValue{Tool: AskUserQuestionName}, Behavior: permission.Allow, Source: permission.SourceSession}}},
	} {
		s, _ := newSession(t, cfg)
		d := decide(t, ask, s.pc, twoQuestions)
		if d.Behavior != permission.Ask || d.Message != AskMessage {
			t.Errorf("%s: %s %q, want ask %q", cfg.Mode, d.Behavior, d.Message, AskMessage)
		}
	}
	s, _ := newSession(t, permission.Config{Mode: permission.ModeDontAsk})
	if d := decide(t, ask, s.pc, twoQuestions); d.Behavior != permission.Deny {
		t.Errorf("dontAsk: %s, want deny", d.Behavior)
	}
}

func TestAskUserQuestionAnswers(t *testing.T) {
	s, env := newSession(t, permission.Config{})
	ask := NewAskUserQuestion()
	in, err := ask.Decode(json.RawMessage(twoQuestions))
	if err != nil {
		t.Fatal(err)
	}
	var e permission.Engine
	d, err := e.Authorize(context.Background(), s.pc, ask, in, answerer{map[string]string{"Which features?": "Auth, Export", "Which database?": "SQLite"}})
	if err != nil || d.Behavior != permission.Allow {
		t.Fatalf("authorize: %v %v", d, err)
	}
	res, err := ask.Call(context.Background(), d.UpdatedInput, env)
	if err != nil {
		t.Fatal(err)
	}
	want := `User has answered your questions: "Which database?"="SQLite", "Which features?"="Auth, Export". You can now continue with the user's answers in mind.`
	if got := res.TextOf(); got != want || res.IsError {
		t.Errorf("got %q, want %q", got, want)
	}

	// An approval without answers is reported, not invented.
	res, err = ask.Call(context.Background(), in, env)
	if err != nil || !res.IsError || !strings.Contains(res.TextOf(), "did not answer") {
		t.Errorf("unanswered: %+v %v", res, err)
	}
}

func TestPlanModeRoundTrip(t *testing.T) {
	for _, start := range []permission.Mode{permission.ModeDefault, permission.ModeAcceptEdits, permission.ModeBypass} {
		t.Run(string(start), func(t *testing.T) {
			s, env := newSession(t, permission.Config{Mode: start})
			if d := decide(t, NewEnterPlanMode(), s.pc, `{}`); d.Behavior != permission.Allow {
				t.Fatalf("EnterPlanMode decision %s", d.Behavior)
			}
			res, err := call(t, NewEnterPlanMode(), env, `{}`)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(res.TextOf(), "Entered plan mode.") {
				t.Errorf("enter result %q", res.TextOf())
			}
			if got := env.Permissions(); got.Mode() != permission.ModePlan || got.PrePlanMode() != start {
				t.Fatalf("after enter: mode %s prePlan %s", got.Mode(), got.PrePlanMode())
			}

			// Leaving asks, in every mode (plan with bypass available included).
			d := decide(t, NewExitPlanMode(), env.Permissions(), `{"plan":"1. do it"}`)
			if d.Behavior != permission.Ask || d.Message != ExitPlanAskMessage {
				t.Errorf("ExitPlanMode decision %s %q", d.Behavior, d.Message)
			}
			res, err = call(t, NewExitPlanMode(), env, `{"plan":"1. do it"}`)
			if err != nil {
				t.Fatal(err)
			}
			if want := approvedPlanReply + "\n\n## Approved Plan:\n1. do it"; res.TextOf() != want {
				t.Errorf("exit result %q", res.TextOf())
			}
			if got := env.Permissions(); got.Mode() != start || got.PrePlanMode() != "" {
				t.Errorf("after exit: mode %s prePlan %q, want %s", got.Mode(), got.PrePlanMode(), start)
			}
			if out := res.Output.(ModeChange); out.From != permission.ModePlan || out.To != start {
				t.Errorf("output %+v", out)
			}
		})
	}
}

func TestExitPlanModeOutsidePlanMode(t *testing.T) {
	_, env := newSession(t, permission.Config{Mode: permission.ModeAcceptEdits})
	_, err := call(t, NewExitPlanMode(), env, `{}`)
	if err == nil || err.Error() != notInPlanMessage {
		t.Errorf("got %v", err)
	}
}

func TestEnterPlanModeRefusedInSubAgent(t *testing.T) {
	_, env := newSession(t, permission.Config{})
	MarkSubAgent(env)
	if _, err := call(t, NewEnterPlanMode(), env, `{}`); err == nil || err.Error() != "EnterPlanMode tool cannot be used in agent contexts" {
		t.Errorf("got %v", err)
	}
	if env.Permissions().Mode() != permission.ModeDefault {
		t.Error("mode changed")
	}
}

func TestWorkflowToolFlags(t *testing.T) {
	for _, tt := range []struct {
		tl          tool.Tool
		interaction bool
	}{
		{NewTodoWrite(), false},
		{NewAskUserQuestion(), true},
		{NewEnterPlanMode(), false},
		{NewExitPlanMode(), true},
	} {
		if tt.tl.RequiresUserInteraction() != tt.interaction {
			t.Errorf("%s: RequiresUserInteraction = %v", tt.tl.Name(), !tt.interaction)
		}
		if !tt.tl.Spec().Defer {
			t.Errorf("%s is not deferred", tt.tl.Name())
		}
		if p, _ := tt.tl.Prompt(context.Background()); p == "" {
			t.Errorf("%s has no prompt", tt.tl.Name())
		}
	}
}
