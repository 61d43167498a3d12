package hooks

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/reinsdev/reins/permission"
)

// fixedHandler answers like a hook process would, without starting one: the seam an SDK's
// hook_callback uses.
type fixedHandler Raw

func (h fixedHandler) Handle(context.Context, []byte) (Raw, error) { return Raw(h), nil }

// answers are the PreToolUse answers a hook can give, with the behaviour each one stands for.
var answers = []struct {
	raw  Raw
	want permission.Behavior
}{
	{Raw{ExitCode: 0}, permission.Passthrough},
	{Raw{ExitCode: 0, Stdout: "plain text"}, permission.Passthrough},
	{Raw{ExitCode: 1, Stderr: "broken"}, permission.Passthrough},
	{Raw{ExitCode: 2, Stderr: "blocked"}, permission.Deny},
	{Raw{Stdout: `{"hookSpecificOutput":{"permissionDecision":"allow"}}`}, permission.Allow},
	{Raw{Stdout: `{"hookSpecificOutput":{"permissionDecision":"ask"}}`}, permission.Ask},
	{Raw{Stdout: `{"hookSpecificOutput":{"permissionDecision":"deny"}}`}, permission.Deny},
	{Raw{Stdout: `{"decision":"approve"}`}, permission.Allow},
	{Raw{Stdout: `{"decision":"block"}`}, permission.Deny},
	{Raw{Stdout: `{"continue":false}`}, permission.Deny},
	// An answer that is not valid hook JSON is taken as a block, never as no answer.
	{Raw{Stdout: `{"hookSpecificOutput":{"permissionDecision":"maybe"}}`}, permission.Deny},
	{Raw{Stdout: `{"hookSpecificOutput":{"permissionDecision":"allow"`}, permission.Deny},
	{Raw{Stdout: `{"decision":"appr` + truncatedMarker}, permission.Deny},
}

// Whatever the matching hooks answer, in any order, the verdict is the strongest answer:
// deny > ask > allow > none.
func TestPropertyAggregation(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 6).Draw(t, "n")
		var hs []Hook
		want := permission.Passthrough
		for i := range n {
			a := answers[rapid.IntRange(0, len(answers)-1).Draw(t, fmt.Sprint("answer", i))]
			hs = append(hs, Hook{Event: PreToolUse, Handler: fixedHandler(a.raw), Origin: fmt.Sprint("hook", i)})
			if behaviorRank[a.want] > behaviorRank[want] {
				want = a.want
			}
		}
		r, err := NewRunner(hs)
		if err != nil {
			t.Fatal(err)
		}
		res := r.PreToolUse(context.Background(), Common{}, bashCall)
		if res.Verdict.Behavior != want {
			t.Fatalf("verdict %s, want %s", res.Verdict.Behavior, want)
		}
		if want == permission.Deny && res.UpdatedInput != nil {
			t.Fatal("a denied call kept an updated input")
		}
	})
}

// strictHandler is a handler of a fail-closed type (http, mcp_tool, prompt, agent) whose run
// ends one way: an answer, an error, a hang past its timeout, or garbage.
type strictHandler struct {
	raw  Raw
	err  error
	hang bool
}

func (h strictHandler) FailsClosed() bool { return true }

func (h strictHandler) Handle(ctx context.Context, _ []byte) (Raw, error) {
	if h.hang {
		<-ctx.Done()
		return Raw{}, ctx.Err()
	}
	return h.raw, h.err
}

// strictOutcomes are the ways a fail-closed handler's run can end; failed marks those that
// are not an answer.
var strictOutcomes = []struct {
	h      strictHandler
	failed bool
}{
	{strictHandler{raw: Raw{}}, false},
	{strictHandler{raw: Raw{Stdout: `{"hookSpecificOutput":{"permissionDecision":"allow"}}`}}, false},
	{strictHandler{raw: Raw{Stdout: `{"hookSpecificOutput":{"permissionDecision":"ask"}}`}}, false},
	{strictHandler{raw: Raw{Stdout: `{"hookSpecificOutput":{"permissionDecision":"deny"}}`}}, false},
	{strictHandler{raw: Raw{Stdout: `{"hookSpecificOutput":{"decision":{"behavior":"allow"}}}`}}, false},
	{strictHandler{raw: Raw{ExitCode: 2, Stderr: "judged unsafe"}}, false},
	{strictHandler{err: errors.New("connection refused")}, true},
	{strictHandler{hang: true}, true},
	{strictHandler{raw: Raw{Stdout: "looks fine"}}, true},
	{strictHandler{raw: Raw{Stdout: `{"hookSpecificOutput":{"permissionDecision":"allow"`}}, true},
	{strictHandler{raw: Raw{Stdout: `{"hookSpecificOutput":{"permissionDecision":"sure"}}`}}, true},
	{strictHandler{raw: Raw{Stdout: `{"decision":{"behavior":"allow"}}`}}, true},
}

// propTool is a tool whose own check gives a fixed answer.
type propTool struct{ b permission.Behavior }

func (t propTool) Name() string { return "Bash" }
func (t propTool) CheckPermissions(context.Context, *permission.Context, any) permission.Decision {
	return permission.Decision{Behavior: t.b}
}

// No handler outcome makes a call looser than the same hook answering "block" (exit 2): a
// fail-closed hook that errs, hangs or answers garbage leaves the PreToolUse verdict, the
// engine's decision and the PermissionRequest answer exactly as a block would, whatever the
// other hooks, the tool's own check and the mode say.
func TestPropertyFailuresNeverLoosen(t *testing.T) {
	modes := []permission.Mode{permission.ModeDefault, permission.ModeAcceptEdits, permission.ModeBypass, permission.ModeDontAsk}
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 4).Draw(t, "n")
		var actual, blocked []Hook
		for i := range n {
			origin := fmt.Sprint("hook", i)
			if rapid.Bool().Draw(t, fmt.Sprint("command", i)) {
				a := answers[rapid.IntRange(0, len(answers)-1).Draw(t, fmt.Sprint("answer", i))]
				h := Hook{Event: PreToolUse, Handler: fixedHandler(a.raw), Origin: origin}
				actual, blocked = append(actual, h), append(blocked, h)
				continue
			}
			o := strictOutcomes[rapid.IntRange(0, len(strictOutcomes)-1).Draw(t, fmt.Sprint("outcome", i))]
			h := Hook{Event: PreToolUse, Handler: o.h, Origin: origin}
			if o.h.hang {
				// Only a hang gets the short timeout: an answer given in time must not lose a
				// race with a 1 ms deadline on a loaded machine (the runner rightly treats an
				// answer after the deadline as a timeout).
				h.Timeout = time.Millisecond
			}
			actual = append(actual, h)
			if o.failed {
				h.Handler = fixedHandler(Raw{ExitCode: 2, Stderr: "blocked"})
			}
			blocked = append(blocked, h)
		}
		tool := propTool{[]permission.Behavior{permission.Allow, permission.Ask, permission.Passthrough, permission.Deny}[rapid.IntRange(0, 3).Draw(t, "tool")]}
		pc, err := permission.New(permission.Config{Cwd: "/p", Mode: modes[rapid.IntRange(0, len(modes)-1).Draw(t, "mode")]})
		if err != nil {
			t.Fatal(err)
		}
		got, want := decideWith(t, actual, pc, tool), decideWith(t, blocked, pc, tool)
		if got != want {
			t.Fatalf("with the failures: %v; with blocks instead: %v", got, want)
		}
		for i := range actual {
			actual[i].Event, blocked[i].Event = PermissionRequest, PermissionRequest
		}
		if g, w := askWith(t, actual), askWith(t, blocked); g != w {
			t.Fatalf("PermissionRequest: with the failures %s, with blocks instead %s", g, w)
		}
	})
}

type decided struct{ verdict, decision permission.Behavior }

func decideWith(t *rapid.T, hs []Hook, pc *permission.Context, tool propTool) decided {
	r, err := NewRunner(slices.Clone(hs))
	if err != nil {
		t.Fatal(err)
	}
	res := r.PreToolUse(context.Background(), Common{}, bashCall)
	var e permission.Engine
	d, err := e.AuthorizeWithHook(context.Background(), pc, tool, nil, res.Verdict, nil)
	if err != nil {
		t.Fatal(err)
	}
	return decided{res.Verdict.Behavior, d.Behavior}
}

func askWith(t *rapid.T, hs []Hook) permission.Behavior {
	r, err := NewRunner(slices.Clone(hs))
	if err != nil {
		t.Fatal(err)
	}
	a := &Asker{Runner: r}
	d, err := a.Ask(context.Background(), permission.AskRequest{Tool: "Bash", Input: map[string]any{"command": "ls"}})
	if err != nil {
		t.Fatal(err)
	}
	return d.Behavior
}
