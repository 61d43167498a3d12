package toolcall_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/toolcall"
)

type greetIn struct {
	Name string `json:"name"`
}

// An embedder runs a model's tool call through the same pipeline as the reins agent: the
// input is decoded and validated, decided by the engine (here an allow rule for one name, a
// deny rule for another), and run.
func Example() {
	greet := tool.Build(tool.Def[greetIn]{
		Name: "Greet", Description: "greets someone",
		CheckPermissions: func(_ context.Context, pc *permission.Context, in greetIn) permission.Decision {
			return permission.Decision{Behavior: permission.Passthrough}
		},
		Call: func(_ context.Context, in greetIn, _ *tool.Env) (tool.Result, error) {
			return tool.TextResult("hello, " + in.Name), nil
		},
	})
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	allowGreet := permission.Rule{Value: permission.ParseRule("Greet"), Behavior: permission.Allow, Source: permission.SourceSession}
	for _, rules := range [][]permission.Rule{
		{allowGreet},
		{allowGreet, {Value: permission.ParseRule("Greet"), Behavior: permission.Deny, Source: permission.SourcePolicy}},
		nil, // no rule: the call asks, and with no Asker (headless) the ask is a deny
	} {
		pc, err := permission.New(permission.Config{Cwd: dir, Rules: rules})
		if err != nil {
			fmt.Println(err)
			return
		}
		raw := json.RawMessage(`{"name":"Ada"}`)
		in, err := toolcall.Decode(greet, raw)
		if err != nil {
			fmt.Println(toolcall.UseErrorText(err))
			return
		}
		var p toolcall.Pipeline // headless, no hooks, a zero engine
		out := p.Run(context.Background(), toolcall.Call{Tool: greet, ID: "call_1", Input: in, Raw: raw, Permissions: pc, Env: &tool.Env{}})
		if out.Stage == toolcall.Done {
			fmt.Println("ran:", out.Result.TextOf())
		} else {
			fmt.Println("not run:", out.Failure)
		}
	}
	// Output:
	// ran: hello, Ada
	// not run: Permission to use Greet has been denied.
	// not run: Reins requested permissions to use Greet, but you haven't granted it yet.
}
