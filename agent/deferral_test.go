package agent

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/llmtest"
	"github.com/reinsdev/reins/tool"
)

func specNames(r *llm.Request) []string {
	var out []string
	for _, s := range r.Tools {
		out = append(out, s.Name)
	}
	return out
}

// A deferred tool's schema is sent only after it is loaded, and a call that guesses its input
// is told how to load it.
func TestDeferredToolsAreSentOnceLoaded(t *testing.T) {
	d := tool.NewDeferral(true)
	loader := tool.Build(tool.Def[echoIn]{Name: "Loader", CheckPermissions: allow,
		Call: func(_ context.Context, in echoIn, _ *tool.Env) (tool.Result, error) {
			d.Load(in.Text)
			return tool.TextResult("loaded"), nil
		}})
	strict := tool.Build(tool.Def[struct {
		N int `json:"n"`
	}]{Name: "Strict", Defer: true, Call: func(context.Context, struct {
		N int `json:"n"`
	}, *tool.Env) (tool.Result, error) {
		return tool.TextResult("ran"), nil
	}})
	always := tool.Build(tool.Def[echoIn]{Name: "Always", Defer: true, AlwaysLoad: true,
		Call: func(context.Context, echoIn, *tool.Env) (tool.Result, error) { return tool.TextResult(""), nil }})
	p := llmtest.NewScript(
		use("Strict", `{"n":"not a number"}`), use("Loader", `{"text":"Strict"}`), say("done"))
	a := &Agent{Provider: p, Tools: []tool.Tool{always, loader, strict}, Deferral: d, Permissions: newPerms(t)}
	if _, err := a.Run(t.Context(), nil, llm.UserText("go")); err != nil {
		t.Fatal(err)
	}
	reqs := p.Requests()
	if got := specNames(reqs[0]); !slices.Equal(got, []string{"Always", "Loader"}) {
		t.Errorf("first request tools = %v", got)
	}
	res := resultText(reqs[1].Messages[len(reqs[1].Messages)-1].Content[0])
	if !strings.Contains(res, `ToolSearch with query "select:Strict"`) {
		t.Errorf("result of the guessed call = %q", res)
	}
	if got := specNames(reqs[2]); !slices.Equal(got, []string{"Always", "Loader", "Strict"}) {
		t.Errorf("after loading = %v", got)
	}
}
