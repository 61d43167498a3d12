package agent

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/anthropic"
	"github.com/reinsdev/reins/llm/llmtest"
	"github.com/reinsdev/reins/llm/openaicompat"
	"github.com/reinsdev/reins/tool"
)

func noop() tool.Tool {
	return tool.Build(tool.Def[echoIn]{Name: "Noop", CheckPermissions: allow,
		ConcurrencySafe: func(echoIn) bool { return true },
		Call:            func(context.Context, echoIn, *tool.Env) (tool.Result, error) { return tool.TextResult("ok"), nil }})
}

// BenchmarkToolCallLoop measures one complete tool-call cycle of the loop — a model reply
// with tool calls, their execution and the reply that ends the turn — against the fake
// Anthropic server (real HTTP and SSE) and against an in-process provider (the agent's own
// overhead). ns/op divided by the number of calls is the overhead per tool call.
func BenchmarkToolCallLoop(b *testing.B) {
	for _, calls := range []int{1, 10} {
		var uses []llmtest.ToolCall
		var inproc []string
		for i := range calls {
			uses = append(uses, llmtest.Call("Noop", fmt.Sprintf(`{"text":"%d"}`, i)))
			inproc = append(inproc, "Noop", fmt.Sprintf(`{"text":"%d"}`, i))
		}
		b.Run(fmt.Sprintf("fake-server/calls=%d", calls), func(b *testing.B) {
			srv := llmtest.NewAnthropicServer(b, llmtest.UseTools(uses...), llmtest.Say("done"))
			srv.Repeat()
			p := anthropic.New(anthropic.Options{BaseURL: srv.URL, APIKey: "test"})
			benchRun(b, p)
		})
		b.Run(fmt.Sprintf("in-process/calls=%d", calls), func(b *testing.B) {
			p := &repeating{turns: []llmtest.Answer{use(inproc...), say("done")}}
			benchRun(b, p)
		})
	}
}

func benchRun(b *testing.B, p llm.Provider) {
	a := &Agent{Provider: p, Model: "claude-sonnet-4-5", Tools: []tool.Tool{noop()}, Permissions: newPerms(b)}
	prompt := llm.UserText("go")
	b.ReportAllocs()
	for b.Loop() {
		res, err := a.Run(context.Background(), nil, prompt)
		if err != nil || !strings.HasPrefix(res.Text, "done") {
			b.Fatalf("run: %v %+v", err, res)
		}
	}
}

// repeating plays its turns in a loop without recording requests.
type repeating struct {
	turns []llmtest.Answer
	n     int
}

func (p *repeating) Name() string { return "repeating" }

func (p *repeating) Stream(ctx context.Context, req *llm.Request, _ func(llm.Event)) (*llm.Response, error) {
	t := p.turns[p.n%len(p.turns)]
	p.n++
	return t(ctx, req)
}

// TestAgainstFakeServers runs a multi-turn conversation with tool use through both real
// adapters and their fake servers.
func TestAgainstFakeServers(t *testing.T) {
	script := []llmtest.Turn{
		{Text: []string{"Checking."}, ToolCalls: []llmtest.ToolCall{llmtest.Call("Echo", `{"text":"one"}`), llmtest.Call("Nope", `{}`)}},
		llmtest.UseTools(llmtest.Call("Echo", `{"text":"two"}`)),
		llmtest.Say("All ", "done."),
	}
	for _, api := range []string{"anthropic", "openai"} {
		t.Run(api, func(t *testing.T) {
			var p llm.Provider
			var srv *llmtest.Server
			if api == "anthropic" {
				srv = llmtest.NewAnthropicServer(t, script...)
				p = anthropic.New(anthropic.Options{BaseURL: srv.URL, APIKey: "test"})
			} else {
				srv = llmtest.NewOpenAIServer(t, script...)
				p = openaicompat.New(openaicompat.Options{BaseURL: srv.URL + "/v1"})
			}
			var bus Bus
			var text strings.Builder
			unsub := bus.Subscribe(func(e Event) {
				if e.Type == EventTextDelta {
					text.WriteString(e.Text)
				}
			})
			a := &Agent{Provider: p, Model: "m", Tools: mappingTools(), Permissions: newPerms(t), Bus: &bus}
			res, err := a.Run(context.Background(), nil, llm.UserText("go"))
			unsub()
			if err != nil {
				t.Fatal(err)
			}
			if res.Text != "All done." || res.NumTurns != 3 || res.Usage.OutputTokens != 15 {
				t.Errorf("result %q turns=%d usage=%+v", res.Text, res.NumTurns, res.Usage)
			}
			if text.String() != "Checking.All done." {
				t.Errorf("streamed text %q", text.String())
			}
			// The conversation holds every result, in order, answering the right ids.
			var got []string
			for _, m := range res.Messages {
				for _, b := range m.Content {
					if b.Type == llm.BlockToolResult {
						got = append(got, resultText(b))
					}
				}
			}
			want := []string{"echo: one", tool.UnknownToolMessage("Nope"), "echo: two"}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("results %q, want %q", got, want)
			}
			if n := len(srv.Requests()); n != 3 {
				t.Errorf("%d requests, want 3", n)
			}
		})
	}
}
