package telemetry

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/toolcall"
)

type chatAsker struct{}

func (chatAsker) Ask(context.Context, permission.AskRequest) (permission.Decision, error) {
	return permission.Decision{Behavior: permission.Allow, Reason: &permission.Reason{Type: permission.ReasonOther, Detail: "approved in the permission dialog", Answerer: permission.FrontEndChat}}, nil
}

// The tool_decision event says who decided — here a person in the chat — and the version of
// the signed policy the engine decided under, taken from the decision itself.
func TestToolDecisionSaysWhoDecided(t *testing.T) {
	f := newFixture(t, Config{})
	var seen string
	tl := echoTool(&seen)
	pc, err := permission.New(permission.Config{Cwd: t.TempDir(), Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	in, err := toolcall.Decode(tl, json.RawMessage(`{"cmd":"ls"}`))
	if err != nil {
		t.Fatal(err)
	}
	c := toolcall.Call{Tool: tl, ID: "toolu_1", Input: in, Raw: json.RawMessage(`{"cmd":"ls"}`), Permissions: pc, Env: &tool.Env{}}
	ctx, end := f.tel.Observer().Call(context.Background(), c)
	p := toolcall.Pipeline{Engine: &permission.Engine{PolicyVersion: "9"}, Asker: chatAsker{}}
	out := p.Run(ctx, c)
	end(out)
	if out.Stage != toolcall.Done {
		t.Fatalf("stage %v", out.Stage)
	}
	f.tel.Shutdown(context.Background())
	ev := f.logs.events(eventToolDecision)
	if len(ev) != 1 {
		t.Fatalf("%d tool_decision events", len(ev))
	}
	var got []string
	for k, v := range ev[0] {
		// The step names the pipeline's stage, which other tests pin down.
		if (strings.HasPrefix(k, "reins.") && k != attrReinsStep) || k == attrSource || k == attrDecision {
			got = append(got, k+"="+v)
		}
	}
	slices.Sort(got)
	const want = "decision=accept reins.decided_by=person reins.decision=allow reins.front_end=chat reins.mode=default " +
		"reins.policy.version=9 reins.reason.type=other source=user"
	if line := strings.Join(got, " "); line != want {
		t.Errorf("tool_decision attributes\n got %s\nwant %s", line, want)
	}
}
