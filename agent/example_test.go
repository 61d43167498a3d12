package agent_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
)

// fakeModel is a provider that needs no network: it calls the Add tool once, then answers
// with the tool's result. Tests of real providers use llm/llmtest's fake HTTP APIs instead.
type fakeModel struct{}

func (fakeModel) Name() string { return "fake" }

func (fakeModel) Stream(_ context.Context, req *llm.Request, _ func(llm.Event)) (*llm.Response, error) {
	last := req.Messages[len(req.Messages)-1]
	for _, b := range last.Content {
		if b.Type == llm.BlockToolResult {
			return &llm.Response{StopReason: llm.StopEndTurn, Message: llm.Message{Role: llm.RoleAssistant,
				Content: []llm.Block{llm.Text("The sum is " + b.Content[0].Text + ".")}}}, nil
		}
	}
	return &llm.Response{StopReason: llm.StopToolUse, Message: llm.Message{Role: llm.RoleAssistant,
		Content: []llm.Block{llm.ToolUse("toolu_1", "Add", json.RawMessage(`{"a":2,"b":3}`))}}}, nil
}

type addInput struct {
	A int `json:"a"`
	B int `json:"b"`
}

// Run the agent loop: the model's tool calls go through the permission engine and the tools,
// and the results back to the model, until it answers.
func ExampleAgent_Run() {
	add := tool.Build(tool.Def[addInput]{
		Name: "Add",
		CheckPermissions: func(context.Context, *permission.Context, addInput) permission.Decision {
			return permission.Decision{Behavior: permission.Allow} // pure arithmetic
		},
		Call: func(_ context.Context, in addInput, _ *tool.Env) (tool.Result, error) {
			return tool.TextResult(fmt.Sprint(in.A + in.B)), nil
		},
	})
	pc, _ := permission.New(permission.Config{Cwd: "/"})
	a := &agent.Agent{
		Provider:    fakeModel{},
		Model:       "any",
		Tools:       []tool.Tool{add},
		Permissions: agent.NewPermissions(pc, nil),
	}
	res, err := a.Run(context.Background(), nil, llm.UserText("What is 2 + 3?"))
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Subtype, res.NumTurns, res.Text)
	// Output: success 2 The sum is 5.
}
