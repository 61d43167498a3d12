package agent

import (
	"context"
	"testing"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/llmtest"
	"github.com/reinsdev/reins/tool"
)

// TestEndTurnResult: a call whose successful result ends the turn (StructuredOutput's) ends
// the run once the turn's calls have their results; the model is not asked again. A failed
// call of the same tool does not.
func TestEndTurnResult(t *testing.T) {
	answer := tool.Build(tool.Def[echoIn]{Name: "Answer", CheckPermissions: allow,
		Call: func(_ context.Context, in echoIn, _ *tool.Env) (tool.Result, error) {
			if in.Text == "" {
				return tool.ErrorResult("empty answer"), nil
			}
			r := tool.TextResult("taken")
			r.EndTurn = true
			return r, nil
		}})
	tests := []struct {
		name     string
		script   []llmtest.Answer
		requests int
	}{
		{"a valid answer ends the turn", []llmtest.Answer{use("Answer", `{"text":"42"}`, "Echo", `{"text":"x"}`), say("not asked")}, 1},
		{"a failed answer does not", []llmtest.Answer{use("Answer", `{}`), use("Answer", `{"text":"42"}`), say("not asked")}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := llmtest.NewScript(tt.script...)
			a := &Agent{Provider: p, Model: "m", Tools: append(mappingTools(), answer), Permissions: newPerms(t)}
			res, err := a.Run(context.Background(), nil, llm.UserText("go"))
			if err != nil {
				t.Fatal(err)
			}
			if n := len(p.Requests()); n != tt.requests || res.Subtype != SubtypeSuccess {
				t.Errorf("%d requests, %s; want %d requests, success", n, res.Subtype, tt.requests)
			}
			if last := res.Messages[len(res.Messages)-1]; last.Role != llm.RoleUser || last.Content[0].Type != llm.BlockToolResult {
				t.Errorf("the conversation ends with %+v, want the turn's tool results", last)
			}
		})
	}
}
