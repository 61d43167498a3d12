package hooks

import (
	"context"
	"fmt"
	"testing"

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
