package agent

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/reinsdev/reins/hooks"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/llmtest"
	"github.com/reinsdev/reins/tool"
)

func hookRunner(t testing.TB, hs ...hooks.Hook) *hooks.Runner {
	t.Helper()
	r, err := hooks.NewRunner(hs)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestToolHooks(t *testing.T) {
	tests := []struct {
		name   string
		hooks  []hooks.Hook
		calls  []string
		want   string // fragment of the first result
		isErr  bool
		denied int
		runErr string
	}{
		{name: "PreToolUse exit 2 denies", hooks: []hooks.Hook{{Event: hooks.PreToolUse, Matcher: "Echo", Command: "echo 'not now' >&2; exit 2"}},
			calls: []string{"Echo", `{"text":"x"}`}, want: "not now", isErr: true, denied: 1},
		{name: "PreToolUse matcher misses", hooks: []hooks.Hook{{Event: hooks.PreToolUse, Matcher: "Other", Command: "exit 2"}},
			calls: []string{"Echo", `{"text":"x"}`}, want: "echo: x"},
		{name: "updatedInput replaces the input", hooks: []hooks.Hook{{Event: hooks.PreToolUse, Command: `echo '{"hookSpecificOutput":{"updatedInput":{"text":"from hook"}}}'`}},
			calls: []string{"Echo", `{"text":"x"}`}, want: "echo: from hook"},
		{name: "updatedInput is validated", hooks: []hooks.Hook{{Event: hooks.PreToolUse, Command: `echo '{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"text":""}}}'`}},
			calls: []string{"Picky", `{"text":"fine"}`}, want: "text must not be empty", isErr: true},
		{name: "updatedInput of the wrong shape", hooks: []hooks.Hook{{Event: hooks.PreToolUse, Command: `echo '{"hookSpecificOutput":{"updatedInput":{"text":5}}}'`}},
			calls: []string{"Echo", `{"text":"x"}`}, want: "the input a PreToolUse hook substituted is invalid", isErr: true},
		{name: "hook allow passes an ask headless", hooks: []hooks.Hook{{Event: hooks.PreToolUse, Command: `echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`}},
			calls: []string{"Asky", `{}`}, want: "ran"},
		{name: "PostToolUse feedback reaches the model", hooks: []hooks.Hook{{Event: hooks.PostToolUse, Command: "echo 'lint failed' >&2; exit 2"}},
			calls: []string{"Echo", `{"text":"x"}`}, want: "PostToolUse hook feedback: lint failed"},
		{name: "PostToolUseFailure sees the error", hooks: []hooks.Hook{{Event: hooks.PostToolUseFailure, Command: `grep -q '"error":"boom"' && echo '{"hookSpecificOutput":{"additionalContext":"seen boom"}}'`}},
			calls: []string{"Failing", `{"text":"boom"}`}, want: "PostToolUseFailure hook context: seen boom", isErr: true},
		{name: "PermissionDenied retry", hooks: []hooks.Hook{{Event: hooks.PermissionDenied, Command: `echo '{"hookSpecificOutput":{"hookEventName":"PermissionDenied","retry":true}}'`}},
			calls: []string{"Asky", `{}`}, want: "may retry", isErr: true, denied: 1},
		{name: "continue false stops the run", hooks: []hooks.Hook{{Event: hooks.PreToolUse, Command: `echo '{"continue":false,"stopReason":"maintenance window"}'`}},
			calls: []string{"Echo", `{"text":"x"}`}, want: "maintenance window", isErr: true, denied: 1, runErr: "maintenance window"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := llmtest.NewScript(use(tt.calls...), say("done"))
			a := &Agent{Provider: p, Model: "m", Tools: mappingTools(), Permissions: newPerms(t), Hooks: hookRunner(t, tt.hooks...)}
			res, err := a.Run(context.Background(), nil, llm.UserText("go"))
			if tt.runErr != "" {
				// The turn ends where the hook asked, as a success that says why.
				if err != nil || res.Subtype != SubtypeSuccess || res.TerminalReason != TerminalHookStopped ||
					res.HookStop == nil || !strings.Contains(res.HookStop.Error(), tt.runErr) {
					t.Fatalf("run error %v, result %s/%s %v; want a success stopped by the hook with %q", err, res.Subtype, res.TerminalReason, res.HookStop, tt.runErr)
				}
				if n := len(p.Requests()); n != 1 {
					t.Errorf("%d requests after the hook stopped the turn, want 1", n)
				}
				last := res.Messages[len(res.Messages)-1]
				if r := last.Content[0]; !r.IsError || !strings.Contains(resultText(r), tt.want) {
					t.Errorf("result %+v", r)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			r := lastResults(t, p)[0]
			if r.IsError != tt.isErr || !strings.Contains(resultText(r), tt.want) {
				t.Errorf("result error=%v %q, want error=%v %q", r.IsError, resultText(r), tt.isErr, tt.want)
			}
			if len(res.PermissionDenials) != tt.denied {
				t.Errorf("%d denials, want %d", len(res.PermissionDenials), tt.denied)
			}
		})
	}
}

func TestPromptAndStopHooks(t *testing.T) {
	t.Run("UserPromptSubmit block", func(t *testing.T) {
		p := llmtest.NewScript()
		a := &Agent{Provider: p, Model: "m", Permissions: newPerms(t),
			Hooks: hookRunner(t, hooks.Hook{Event: hooks.UserPromptSubmit, Command: "echo 'no prompts today' >&2; exit 2"})}
		_, err := a.Run(context.Background(), nil, llm.UserText("hi"))
		if err == nil || !strings.Contains(err.Error(), "no prompts today") || len(p.Requests()) != 0 {
			t.Errorf("err %v, %d requests", err, len(p.Requests()))
		}
	})
	t.Run("UserPromptSubmit context", func(t *testing.T) {
		p := llmtest.NewScript(say("ok"))
		a := &Agent{Provider: p, Model: "m", Permissions: newPerms(t),
			Hooks: hookRunner(t, hooks.Hook{Event: hooks.UserPromptSubmit, Command: "echo 'branch: main'"})}
		if _, err := a.Run(context.Background(), nil, llm.UserText("hi")); err != nil {
			t.Fatal(err)
		}
		if got := p.Requests()[0].Messages[0].Text(); !strings.Contains(got, "branch: main") {
			t.Errorf("prompt %q", got)
		}
	})
	t.Run("Stop blocks once", func(t *testing.T) {
		p := llmtest.NewScript(say("first"), say("second"))
		a := &Agent{Provider: p, Model: "m", Permissions: newPerms(t),
			Hooks: hookRunner(t, hooks.Hook{Event: hooks.Stop, Command: `grep -q '"stop_hook_active":true' && exit 0; echo 'tests are red' >&2; exit 2`})}
		res, err := a.Run(context.Background(), nil, llm.UserText("hi"))
		if err != nil {
			t.Fatal(err)
		}
		reqs := p.Requests()
		if res.Text != "second" || len(reqs) != 2 || !strings.Contains(reqs[1].Messages[2].Text(), "tests are red") {
			t.Errorf("text %q, %d requests", res.Text, len(reqs))
		}
	})
	t.Run("a sub-agent runs SubagentStop, not Stop", func(t *testing.T) {
		dir := t.TempDir()
		p := llmtest.NewScript(say("sub done"))
		a := &Agent{Provider: p, Model: "m", Permissions: newPerms(t), SubAgent: true,
			Hooks: hookRunner(t,
				hooks.Hook{Event: hooks.Stop, Command: "touch " + dir + "/stop"},
				hooks.Hook{Event: hooks.SubagentStop, Command: "grep -q SubagentStop && touch " + dir + "/subagentstop"})}
		if _, err := a.Run(context.Background(), nil, llm.UserText("hi")); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(dir + "/subagentstop"); err != nil {
			t.Error("SubagentStop did not run")
		}
		if _, err := os.Stat(dir + "/stop"); err == nil {
			t.Error("Stop ran for a sub-agent")
		}
	})
	t.Run("SubagentStop alone runs", func(t *testing.T) {
		dir := t.TempDir()
		p := llmtest.NewScript(say("sub done"))
		a := &Agent{Provider: p, Model: "m", Permissions: newPerms(t), SubAgent: true,
			Hooks: hookRunner(t, hooks.Hook{Event: hooks.SubagentStop, Command: "touch " + dir + "/subagentstop"})}
		if _, err := a.Run(context.Background(), nil, llm.UserText("hi")); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(dir + "/subagentstop"); err != nil {
			t.Error("SubagentStop did not run when no Stop hook is configured")
		}
	})
}

// BenchmarkPreToolUseHook measures one tool call's cycle with no hook and with one trivial
// PreToolUse hook (`true`), in process: the difference is the hook's overhead per call.
func BenchmarkPreToolUseHook(b *testing.B) {
	for _, tc := range []struct {
		name  string
		hooks []hooks.Hook
	}{
		{"none", nil},
		{"true", []hooks.Hook{{Event: hooks.PreToolUse, Command: "true"}}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var r *hooks.Runner
			if tc.hooks != nil {
				r = hookRunner(b, tc.hooks...)
			}
			p := &repeating{turns: []llmtest.Answer{use("Noop", `{"text":"1"}`), say("done")}}
			a := &Agent{Provider: p, Model: "claude-sonnet-4-5", Tools: []tool.Tool{noop()}, Permissions: newPerms(b), Hooks: r}
			prompt := llm.UserText("go")
			for b.Loop() {
				res, err := a.Run(context.Background(), nil, prompt)
				if err != nil || !strings.HasPrefix(res.Text, "done") {
					b.Fatal(fmt.Sprint(err, res))
				}
			}
		})
	}
}
