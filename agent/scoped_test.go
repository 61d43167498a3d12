package agent

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/llmtest"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
)

// echoTool asks unless a rule allows it (its own check passes).
func echoTool(equiv func(a, b echoIn) bool) tool.Tool {
	return tool.Build(tool.Def[echoIn]{Name: "Echo", InputsEquivalent: equiv,
		Call: func(_ context.Context, in echoIn, _ *tool.Env) (tool.Result, error) {
			return tool.TextResult("echo " + in.Text), nil
		}})
}

// countingAsker denies every ask and counts them, or answers with answer when set.
type countingAsker struct {
	mu     sync.Mutex
	n      int
	answer *permission.Decision
}

func (a *countingAsker) Ask(context.Context, permission.AskRequest) (permission.Decision, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.n++
	if a.answer != nil {
		return *a.answer, nil
	}
	return permission.Decision{Behavior: permission.Deny, Message: RejectMessage}, nil
}

type stateRecorder struct{ states []SessionState }

func (r *stateRecorder) AppendMessage(llm.Message) error { return nil }
func (r *stateRecorder) AppendPermissions(st SessionState) error {
	r.states = append(r.states, st)
	return nil
}

func TestScopedGrantCallBudget(t *testing.T) {
	perms := newPerms(t)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	perms.SetClock(func() time.Time { return now })
	if err := perms.AddScoped(t.Context(), ScopedGrant{Rules: []string{"Echo"}, Calls: 2}); err != nil {
		t.Fatal(err)
	}
	asker := &countingAsker{}
	rec := &stateRecorder{}
	p := llmtest.NewScript(
		use("Echo", `{"text":"1"}`, "Echo", `{"text":"2"}`, "Echo", `{"text":"3"}`), say("done"))
	a := &Agent{Provider: p, Model: "m", Tools: []tool.Tool{echoTool(nil)}, Permissions: perms, Asker: asker, Recorder: rec}
	if _, err := a.Run(t.Context(), nil, llm.UserText("go")); err != nil {
		t.Fatal(err)
	}
	res := lastResults(t, p)
	if resultText(res[0]) != "echo 1" || resultText(res[1]) != "echo 2" || !res[2].IsError {
		t.Errorf("results %q %q %q: want two runs and then an ask (denied)", resultText(res[0]), resultText(res[1]), resultText(res[2]))
	}
	if asker.n != 1 {
		t.Errorf("%d asks, want 1 (after the budget of 2 ran out)", asker.n)
	}
	if got := perms.Scoped(); len(got) != 0 {
		t.Errorf("a used-up grant is still listed: %+v", got)
	}
	if n := len(rec.states); n == 0 || len(rec.states[0].Scoped) != 1 || rec.states[0].Scoped[0].Calls != 1 {
		t.Errorf("the recorder did not see the budget go down: %+v", rec.states)
	}
}

func TestScopedGrantExpires(t *testing.T) {
	perms := newPerms(t)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	perms.SetClock(func() time.Time { return now })
	if err := perms.AddScoped(t.Context(), ScopedGrant{Rules: []string{"Echo"}, Expires: now.Add(30 * time.Minute)}); err != nil {
		t.Fatal(err)
	}
	var e permission.Engine
	decide := func() permission.Behavior {
		d, err := e.Decide(t.Context(), perms.Context(), echoTool(nil), echoIn{Text: "x"})
		if err != nil {
			t.Fatal(err)
		}
		return d.Behavior
	}
	if b := decide(); b != permission.Allow {
		t.Fatalf("inside its time the grant gives %s, want allow", b)
	}
	saved := perms.State()
	now = now.Add(29 * time.Minute)
	if b := decide(); b != permission.Allow {
		t.Fatalf("a minute before expiry: %s, want allow", b)
	}
	now = now.Add(time.Minute)
	if b := decide(); b != permission.Ask {
		t.Fatalf("after expiry: %s, want ask", b)
	}

	// Resuming restores a grant only while it is still valid.
	for _, tt := range []struct {
		at   time.Time
		want int
	}{{saved.Scoped[0].Expires.Add(-time.Second), 1}, {saved.Scoped[0].Expires, 0}} {
		resumed := newPerms(t)
		resumed.SetClock(func() time.Time { return tt.at })
		resumed.RestoreScoped(saved.Scoped)
		if got := len(resumed.Scoped()); got != tt.want {
			t.Errorf("resumed at %v: %d grants, want %d", tt.at, got, tt.want)
		}
	}
}

func TestScopedGrantNeedsALimit(t *testing.T) {
	perms := newPerms(t)
	for _, g := range []ScopedGrant{{Rules: []string{"Echo"}}, {Calls: 3}, {Rules: []string{"Echo"}, Calls: -1}} {
		if err := perms.AddScoped(t.Context(), g); err == nil {
			t.Errorf("AddScoped(%+v) accepted a grant without rules or a limit", g)
		}
	}
	if st := perms.State(); len(st.Rules) != 0 || len(st.Scoped) != 0 {
		t.Errorf("a refused grant changed the state: %+v", st)
	}
}

// A person's edit is reported to the model when the tool says it changed the call.
func TestUserModifiedInput(t *testing.T) {
	edited := permission.Decision{Behavior: permission.Allow, UpdatedInput: json.RawMessage(`{"text":"edited"}`), UserModified: true}
	for _, tt := range []struct {
		name  string
		equiv func(a, b echoIn) bool
		note  bool
	}{
		{"different", nil, true},
		// A tool may judge inputs equivalent although they differ (formatting, defaults).
		{"equivalent", func(a, b echoIn) bool { return true }, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := llmtest.NewScript(use("Echo", `{"text":"orig"}`), say("done"))
			a := &Agent{Provider: p, Model: "m", Tools: []tool.Tool{echoTool(tt.equiv)}, Permissions: newPerms(t), Asker: &countingAsker{answer: &edited}}
			if _, err := a.Run(t.Context(), nil, llm.UserText("go")); err != nil {
				t.Fatal(err)
			}
			got := resultText(lastResults(t, p)[0])
			if !strings.HasPrefix(got, "echo edited") {
				t.Errorf("the edited input did not run: %q", got)
			}
			if has := strings.Contains(got, "The user modified the input"); has != tt.note {
				t.Errorf("note present %v, want %v: %q", has, tt.note, got)
			}
		})
	}
}
