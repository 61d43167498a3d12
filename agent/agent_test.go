package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/llmtest"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
)

func TestMain(m *testing.M) {
	// The Bash tool's spawner lives as long as the process, by design (tools/bash/proc_linux.go).
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("github.com/reinsdev/reins/tools/bash.startGuarded.func1.1"))
}

// panickyDecoder is a tool whose decoding panics.
type panickyDecoder struct{ tool.Tool }

func (panickyDecoder) Name() string { return "BadDecoder" }

func (panickyDecoder) Decode(json.RawMessage) (any, error) { panic("decoder bug") }

// mappingTools covers every way a call can end.
func mappingTools() []tool.Tool {
	return []tool.Tool{
		panickyDecoder{tool.Build(tool.Def[echoIn]{Name: "BadDecoder", Call: func(context.Context, echoIn, *tool.Env) (tool.Result, error) {
			return tool.Result{}, nil
		}})},
		tool.Build(tool.Def[echoIn]{Name: "Echo", Aliases: []string{"OldEcho"}, CheckPermissions: allow,
			Call: func(_ context.Context, in echoIn, _ *tool.Env) (tool.Result, error) {
				return tool.TextResult("echo: " + in.Text), nil
			}}),
		tool.Build(tool.Def[echoIn]{Name: "Picky", CheckPermissions: allow,
			Validate: func(_ context.Context, in echoIn, _ *tool.Env) *tool.Failure {
				if in.Text == "" {
					return tool.Fail("text must not be empty")
				}
				return nil
			},
			Call: func(context.Context, echoIn, *tool.Env) (tool.Result, error) { return tool.TextResult("ok"), nil }}),
		// No CheckPermissions: passthrough, so headless it is denied.
		tool.Build(tool.Def[echoIn]{Name: "Asky",
			Call: func(context.Context, echoIn, *tool.Env) (tool.Result, error) { return tool.TextResult("ran"), nil }}),
		tool.Build(tool.Def[echoIn]{Name: "Failing", CheckPermissions: allow,
			Call: func(_ context.Context, in echoIn, _ *tool.Env) (tool.Result, error) {
				return tool.Result{}, errors.New(in.Text)
			}}),
		tool.Build(tool.Def[echoIn]{Name: "Panicky", CheckPermissions: allow,
			Call: func(context.Context, echoIn, *tool.Env) (tool.Result, error) { panic("boom") }}),
		tool.Build(tool.Def[echoIn]{Name: "Erroring", CheckPermissions: allow,
			Call: func(context.Context, echoIn, *tool.Env) (tool.Result, error) {
				return tool.ErrorResult("Exit code 1\nno such file"), nil
			}}),
		tool.Build(tool.Def[echoIn]{Name: "Rewriting",
			CheckPermissions: func(_ context.Context, _ *permission.Context, in echoIn) permission.Decision {
				return permission.Decision{Behavior: permission.Allow, UpdatedInput: map[string]any{"text": in.Text + "!"}}
			},
			Call: func(_ context.Context, in echoIn, _ *tool.Env) (tool.Result, error) {
				return tool.TextResult(in.Text), nil
			}}),
	}
}

func TestResultMapping(t *testing.T) {
	long := strings.Repeat("a", 6000) + strings.Repeat("b", 6000)
	tests := []struct {
		name, tool, input string
		want              string
		isError           bool
		denied            bool
	}{
		{"success", "Echo", `{"text":"hi"}`, "echo: hi", false, false},
		{"alias", "OldEcho", `{"text":"hi"}`, "echo: hi", false, false},
		{"unknown tool", "Nope", `{}`, "<tool_use_error>Error: No such tool available: Nope</tool_use_error>", true, false},
		{"schema failure", "Echo", `{"text":1,"extra":true}`,
			"<tool_use_error>InputValidationError: Echo failed due to the following issues:\n" +
				"An unexpected parameter `extra` was provided\n" +
				"The parameter `text` type is expected as `string` but provided as `integer`</tool_use_error>", true, false},
		{"validate failure", "Picky", `{"text":""}`, "<tool_use_error>text must not be empty</tool_use_error>", true, false},
		{"headless ask is a deny", "Asky", `{"text":"x"}`, permission.RequestMessage("Asky"), true, true},
		{"call error", "Failing", `{"text":"disk on fire"}`, "disk on fire", true, false},
		{"long call error", "Failing", `{"text":"` + long + `"}`,
			strings.Repeat("a", 5000) + "\n\n... [2000 characters truncated] ...\n\n" + strings.Repeat("b", 5000), true, false},
		{"decode panic", "BadDecoder", `{}`, "<tool_use_error>Error calling tool (BadDecoder): decoder bug</tool_use_error>", true, false},
		{"panic", "Panicky", `{}`, "<tool_use_error>Error calling tool (Panicky): boom</tool_use_error>", true, false},
		{"tool error result", "Erroring", `{}`, "Exit code 1\nno such file", true, false},
		{"updated input", "Rewriting", `{"text":"hey"}`, "hey!", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := llmtest.NewScript(use(tt.tool, tt.input), say("done"))
			a := &Agent{Provider: p, Model: "m", Tools: mappingTools(), Permissions: newPerms(t)}
			res, err := a.Run(context.Background(), nil, llm.UserText("go"))
			if err != nil {
				t.Fatal(err)
			}
			rs := lastResults(t, p)
			if len(rs) != 1 {
				t.Fatalf("got %d results, want 1", len(rs))
			}
			r := rs[0]
			if r.Type != llm.BlockToolResult || r.ToolUseID != "toolu_1_0" {
				t.Errorf("result block %+v, want tool_result for toolu_1_0", r)
			}
			if got := resultText(r); got != tt.want {
				t.Errorf("result text:\n%q\nwant\n%q", got, tt.want)
			}
			if r.IsError != tt.isError {
				t.Errorf("is_error = %v, want %v", r.IsError, tt.isError)
			}
			if got := len(res.PermissionDenials) > 0; got != tt.denied {
				t.Errorf("denials %+v, want denied=%v", res.PermissionDenials, tt.denied)
			}
			if tt.denied {
				d := res.PermissionDenials[0]
				if d.ToolName != tt.tool || d.ToolUseID != "toolu_1_0" || string(d.ToolInput) != tt.input {
					t.Errorf("denial %+v", d)
				}
			}
			if res.Subtype != SubtypeSuccess || res.Text != "done" || res.NumTurns != 2 {
				t.Errorf("result %s %q turns=%d", res.Subtype, res.Text, res.NumTurns)
			}
		})
	}
}

// TestEveryUseGetsOneResult sends all kinds of calls in one message and checks the results
// come back one per tool_use, in tool_use order.
func TestEveryUseGetsOneResult(t *testing.T) {
	calls := []string{"Echo", `{"text":"1"}`, "Nope", `{}`, "Asky", `{"text":"x"}`, "Panicky", `{}`,
		"Echo", `{"text":"2"}`, "Failing", `{"text":"f"}`, "Echo", `{"text":3}`}
	p := llmtest.NewScript(use(calls...), say("done"))
	a := &Agent{Provider: p, Model: "m", Tools: mappingTools(), Permissions: newPerms(t)}
	if _, err := a.Run(context.Background(), nil, llm.UserText("go")); err != nil {
		t.Fatal(err)
	}
	rs := lastResults(t, p)
	uses := p.Requests()[1].Messages[1].ToolUses()
	if len(rs) != len(uses) {
		t.Fatalf("%d results for %d uses", len(rs), len(uses))
	}
	for i := range uses {
		if rs[i].ToolUseID != uses[i].ID {
			t.Errorf("result %d answers %s, want %s", i, rs[i].ToolUseID, uses[i].ID)
		}
	}
}

func TestMaxTurns(t *testing.T) {
	p := llmtest.NewScript(use("Echo", `{"text":"1"}`), use("Echo", `{"text":"2"}`))
	a := &Agent{Provider: p, Model: "m", Tools: mappingTools(), Permissions: newPerms(t), MaxTurns: 2}
	res, err := a.Run(context.Background(), nil, llm.UserText("go"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Subtype != SubtypeMaxTurns || !res.IsError || res.NumTurns != 2 {
		t.Errorf("got %s is_error=%v turns=%d, want error_max_turns after 2", res.Subtype, res.IsError, res.NumTurns)
	}
	// The tools of the last turn ran, so the conversation ends with their results.
	if last := res.Messages[len(res.Messages)-1]; last.Role != llm.RoleUser || last.Content[0].Type != llm.BlockToolResult {
		t.Errorf("conversation ends with %+v", last)
	}
}

func TestProviderError(t *testing.T) {
	apiErr := &llm.APIError{Provider: "scripted", StatusCode: 400, Type: "invalid_request_error", Message: "bad"}
	p := llmtest.NewScript(func(context.Context, *llm.Request) (*llm.Response, error) { return nil, apiErr })
	var bus Bus
	var got []Event
	unsub := bus.Subscribe(func(e Event) { got = append(got, e) })
	a := &Agent{Provider: p, Model: "m", Permissions: newPerms(t), Bus: &bus}
	res, err := a.Run(context.Background(), nil, llm.UserText("go"))
	unsub()
	if !errors.Is(err, apiErr) {
		t.Fatalf("err = %v, want the API error", err)
	}
	if res.Subtype != SubtypeExecutionError || !res.IsError {
		t.Errorf("result %s is_error=%v", res.Subtype, res.IsError)
	}
	if len(got) != 1 || got[0].Type != EventResult || got[0].Result != res {
		t.Errorf("events %+v, want only the result", got)
	}
}

// memRecorder is a Recorder in memory.
type memRecorder struct {
	mu     sync.Mutex
	msgs   []llm.Message
	states []SessionState
}

func (r *memRecorder) AppendMessage(m llm.Message) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, m)
	return nil
}

func (r *memRecorder) AppendPermissions(st SessionState) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.states = append(r.states, st)
	return nil
}

func TestRecorderAndPermissionUpdates(t *testing.T) {
	planner := tool.Build(tool.Def[echoIn]{Name: "EnterPlanMode", CheckPermissions: allow,
		Call: func(ctx context.Context, _ echoIn, env *tool.Env) (tool.Result, error) {
			err := env.UpdatePermissions(ctx,
				permission.Update{Type: permission.SetMode, Destination: permission.SourceSession, Mode: permission.ModePlan},
				permission.Update{Type: permission.AddRules, Destination: permission.SourceSession, Behavior: permission.Allow,
					Rules: []permission.RuleValue{permission.ParseRule("Bash(npm test:*)")}})
			return tool.TextResult("planning"), err
		}})
	p := llmtest.NewScript(use("EnterPlanMode", `{}`), say("done"))
	rec := &memRecorder{}
	perms := newPerms(t)
	a := &Agent{Provider: p, Model: "m", Tools: []tool.Tool{planner}, Permissions: perms, Recorder: rec}
	history := []llm.Message{llm.UserText("earlier"), {Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("ok")}}}
	res, err := a.Run(context.Background(), history, llm.UserText("go"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Messages) != 6 {
		t.Fatalf("%d messages in the result, want 6", len(res.Messages))
	}
	// Only the new messages are recorded, in order.
	if len(rec.msgs) != 4 || rec.msgs[0].Text() != "go" || rec.msgs[1].ToolUses() == nil ||
		rec.msgs[2].Content[0].Type != llm.BlockToolResult || rec.msgs[3].Text() != "done" {
		t.Errorf("recorded %+v", rec.msgs)
	}
	want := SessionState{Mode: permission.ModePlan, PrePlanMode: permission.ModeDefault,
		Rules: []SessionRule{{Behavior: permission.Allow, Rule: "Bash(npm test:*)"}}}
	if len(rec.states) != 1 || rec.states[0].Mode != want.Mode || rec.states[0].PrePlanMode != want.PrePlanMode ||
		len(rec.states[0].Rules) != 1 || rec.states[0].Rules[0] != want.Rules[0] {
		t.Errorf("recorded states %+v, want [%+v]", rec.states, want)
	}
	if perms.Context().Mode() != permission.ModePlan {
		t.Errorf("mode %s, want plan", perms.Context().Mode())
	}

	// Restoring onto a fresh context gives the mode and rules back; leaving plan returns to
	// the mode plan was entered from.
	fresh := newPerms(t).Context()
	restored, err := rec.states[0].Restore(fresh, false)
	if err != nil {
		t.Fatal(err)
	}
	if restored.Mode() != permission.ModePlan || restored.PrePlanMode() != permission.ModeDefault {
		t.Errorf("restored mode %s (pre %s)", restored.Mode(), restored.PrePlanMode())
	}
	if got := StateOf(restored); len(got.Rules) != 1 || got.Rules[0] != want.Rules[0] {
		t.Errorf("restored rules %+v", got.Rules)
	}
	kept, err := rec.states[0].Restore(fresh, true)
	if err != nil {
		t.Fatal(err)
	}
	if kept.Mode() != permission.ModeDefault {
		t.Errorf("keepMode: mode %s, want default", kept.Mode())
	}
}

func TestTrailingUserMessageMerged(t *testing.T) {
	p := llmtest.NewScript(say("done"))
	a := &Agent{Provider: p, Model: "m", Permissions: newPerms(t)}
	if _, err := a.Run(context.Background(), []llm.Message{llm.UserText("lost")}, llm.UserText("again")); err != nil {
		t.Fatal(err)
	}
	msgs := p.Requests()[0].Messages
	if len(msgs) != 1 || len(msgs[0].Content) != 2 {
		t.Errorf("sent %+v, want one user message with both texts", msgs)
	}
}

func TestEstimateCost(t *testing.T) {
	c, ok := EstimateCost("claude-sonnet-4-5-20250929", llm.Usage{InputTokens: 1_000_000, OutputTokens: 1_000_000, CacheReadInputTokens: 1_000_000})
	if !ok || c < 18.29 || c > 18.31 {
		t.Errorf("cost %v %v, want 18.30", c, ok)
	}
	if _, ok := EstimateCost("llama3.2", llm.Usage{InputTokens: 1}); ok {
		t.Error("a local model has a known cost")
	}
}

// flushRecorder is a memRecorder that can be flushed, and logs what happened in order.
type flushRecorder struct {
	memRecorder
	log *[]string
	err error
}

func (r *flushRecorder) AppendMessage(m llm.Message) error {
	*r.log = append(*r.log, "append "+string(m.Role))
	return r.memRecorder.AppendMessage(m)
}

func (r *flushRecorder) Flush() error {
	*r.log = append(*r.log, "flush")
	return r.err
}

// TestRunFlushesRecorderBeforeResult: a run makes its recorded turn durable (Flush) after the
// last entry and before it reports the result, whether it succeeded or failed; a failed flush
// fails the run.
func TestRunFlushesRecorderBeforeResult(t *testing.T) {
	apiErr := &llm.APIError{Provider: "scripted", StatusCode: 400, Message: "bad"}
	flushErr := errors.New("disk gone")
	tests := []struct {
		name    string
		answers []llmtest.Answer
		flush   error
		want    []string
		wantErr error
	}{
		{"tool turn", []llmtest.Answer{use("Echo", `{"text":"1"}`), say("done")}, nil,
			[]string{"append user", "append assistant", "append user", "append assistant", "flush", "result"}, nil},
		{"provider error", []llmtest.Answer{func(context.Context, *llm.Request) (*llm.Response, error) { return nil, apiErr }}, nil,
			[]string{"append user", "flush", "result"}, apiErr},
		{"flush error", []llmtest.Answer{say("done")}, flushErr,
			[]string{"append user", "append assistant", "flush", "result"}, flushErr},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log []string
			var bus Bus
			unsub := bus.Subscribe(func(e Event) {
				if e.Type == EventResult {
					log = append(log, "result")
				}
			})
			rec := &flushRecorder{log: &log, err: tt.flush}
			a := &Agent{Provider: llmtest.NewScript(tt.answers...), Model: "m", Tools: mappingTools(), Permissions: newPerms(t), Recorder: rec, Bus: &bus}
			res, err := a.Run(context.Background(), nil, llm.UserText("go"))
			unsub()
			if tt.wantErr == nil && err != nil || tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if tt.wantErr != nil && !res.IsError {
				t.Error("the result does not say the run failed")
			}
			if diff := cmp.Diff(tt.want, log); diff != "" {
				t.Errorf("order (-want +got):\n%s", diff)
			}
		})
	}
}
