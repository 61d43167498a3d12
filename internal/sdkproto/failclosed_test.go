package sdkproto

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/llmtest"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
)

// sdkRun is one whole SDK session over fixed input: what it wrote, what Serve returned, what
// the Poke tool did.
type sdkRun struct {
	lines []map[string]any
	err   error
	poked []string
	// requests are the model requests the session made.
	requests []*llm.Request
}

func (s sdkRun) results() []map[string]any {
	var out []map[string]any
	for _, l := range s.lines {
		if l["type"] == "result" {
			out = append(out, l)
		}
	}
	return out
}

func (s sdkRun) response(id string) map[string]any {
	for _, l := range s.lines {
		if r, ok := l["response"].(map[string]any); ok && l["type"] == "control_response" && r["request_id"] == id {
			return r
		}
	}
	return nil
}

// fataler is what serveInput needs of a *testing.T or a *rapid.T.
type fataler interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// serveInput runs a Server over input to its end. Poke is allowed (bypassPermissions), so a
// turn that runs pokes; prompts is how many turns the model has answers for.
func serveInput(t fataler, dir, input string, prompts int, configure func(*Server)) sdkRun {
	t.Helper()
	pc, err := permission.New(permission.Config{Cwd: dir, Mode: permission.ModeBypass, BypassAvailable: true})
	if err != nil {
		t.Fatal(err)
	}
	var answers []llmtest.Answer
	for i := range prompts {
		answers = append(answers, poke(fmt.Sprintf("t%d", i), "door"), say("poked"))
	}
	perms := agent.NewPermissions(pc, nil)
	pk := newPoke()
	pk.called = make(chan struct{}, 100)
	bus := &agent.Bus{}
	script := llmtest.NewScript(answers...)
	a := &agent.Agent{Provider: script, Model: "claude-sonnet-4-5", Tools: []tool.Tool{pk}, Permissions: perms, Bus: bus, Engine: &permission.Engine{}}
	var out bytes.Buffer
	srv := &Server{In: strings.NewReader(input), Out: &out, Log: &syncBuffer{}, Session: Session{Agent: a, Permissions: perms, Bus: bus, ID: "sess",
		Init: InitInfo{Cwd: pc.Cwd(), Tools: []string{"Poke"}, Model: a.Model, Provider: "fake", Version: "test"}}}
	if configure != nil {
		configure(srv)
	}
	s := sdkRun{err: srv.Serve(context.Background()), poked: pk.targets()}
	s.requests = script.Requests()
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("output line is not JSON: %s", sc.Bytes())
		}
		s.lines = append(s.lines, m)
	}
	return s
}

func controlLine(id, request string) string {
	return `{"type":"control_request","request_id":"` + id + `","request":` + request + "}\n"
}

const promptLine = `{"type":"user","message":{"role":"user","content":"poke the door"},"parent_tool_use_id":null,"session_id":""}` + "\n"

func TestRefusalFailsClosed(t *testing.T) {
	for _, tt := range []struct {
		name, input string
		await       bool
		want        string // in the error result and Serve's error; "" expects the turn to run
	}{
		{name: "a refused initialize", input: controlLine("1", `{"subtype":"initialize","hooks":{"PreToolUse":[{"hookCallbackIds":["h"]}]}}`) + promptLine,
			want: "the initialize request was refused: SDK hook callbacks are not supported"},
		{name: "a second initialize", input: controlLine("1", `{"subtype":"initialize"}`) + controlLine("2", `{"subtype":"initialize"}`) + promptLine,
			want: "the initialize request was refused: already initialized"},
		{name: "an unreadable initialize", input: controlLine("1", `{"subtype":"initialize","hooks":7}`) + promptLine,
			want: "invalid initialize request"},
		{name: "a refused permission mode", input: controlLine("1", `{"subtype":"set_permission_mode","mode":"sideways"}`) + promptLine,
			want: "the set_permission_mode request was refused"},
		{name: "an unknown subtype", input: controlLine("1", `{"subtype":"mcp_set_servers","servers":{}}`) + promptLine,
			want: `the mcp_set_servers request was refused: unsupported control request subtype "mcp_set_servers"`},
		{name: "a control request without subtype", input: controlLine("1", `{}`) + promptLine, want: "without subtype"},
		{name: "a prompt before the announced initialize", await: true, input: promptLine + controlLine("1", `{"subtype":"initialize"}`),
			want: "a user message came before the initialize request that --await-initialize announced"},
		{name: "a prompt after the announced initialize", await: true, input: controlLine("1", `{"subtype":"initialize"}`) + promptLine},
		{name: "a refused request that configures nothing", input: controlLine("1", `{"subtype":"mcp_reconnect","serverName":"x"}`) + promptLine},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := serveInput(t, t.TempDir(), tt.input+promptLine, 2, func(srv *Server) { srv.Options.AwaitInitialize = tt.await })
			rs := s.results()
			if len(rs) != 2 {
				t.Fatalf("%d results, want one per user message: %v", len(rs), s.lines)
			}
			if tt.want == "" {
				if s.err != nil || len(s.poked) != 2 || rs[0]["is_error"] != false {
					t.Errorf("Serve %v, poked %v, result %v: want the turns to run", s.err, s.poked, rs[0])
				}
				return
			}
			if len(s.poked) != 0 {
				t.Errorf("the tool ran %v after the refusal", s.poked)
			}
			for _, r := range rs {
				if r["is_error"] != true || !strings.Contains(fmt.Sprint(r["errors"]), tt.want) {
					t.Errorf("result %v, want an error with %q", r, tt.want)
				}
			}
			if _, ok := errors.AsType[*RefusedError](s.err); !ok || !strings.Contains(s.err.Error(), tt.want) {
				t.Errorf("Serve returned %v, want the refusal", s.err)
			}
		})
	}
}

// controlGen draws a control request and whether reins refuses it in a way that must stop
// every turn. The server has no OnInitialize, so an initialize that configures anything is
// refused.
func controlGen() *rapid.Generator[[2]string] {
	return rapid.SampledFrom([][2]string{
		{`{"subtype":"initialize"}`, "maybe"}, // refused when it is not the first
		{`{"subtype":"initialize","hooks":{"PreToolUse":[{"hookCallbackIds":["h"]}]}}`, "refused"},
		{`{"subtype":"initialize","agents":{"x":{"description":"d","prompt":"p"}}}`, "refused"},
		{`{"subtype":"initialize","sdkMcpServers":["calc"]}`, "refused"},
		{`{"subtype":"initialize","mcpServers":{"s":{"command":"x"}}}`, "refused"},
		{`{"subtype":"set_permission_mode","mode":"acceptEdits"}`, ""},
		{`{"subtype":"set_permission_mode","mode":"bypassPermissions"}`, ""},
		{`{"subtype":"set_permission_mode","mode":"sideways"}`, "refused"},
		{`{"subtype":"set_model","model":"claude-haiku-4-5"}`, ""},
		{`{"subtype":"mcp_status"}`, ""},
		{`{"subtype":"get_context_usage"}`, ""},
		{`{"subtype":"interrupt"}`, ""},
		{`{"subtype":"rewind_files","user_message_id":"x"}`, ""},
		{`{"subtype":"mcp_toggle","serverName":"s","enabled":false}`, "refused"},
		{`{"subtype":"apply_flag_settings","settings":{"permissions":{"deny":["Poke"]}}}`, "refused"},
		{`{"subtype":"no_such_request"}`, "refused"},
		{`{}`, "refused"},
		{`[1]`, "refused"},
	})
}

// TestPropertyRefusedSafetyRunsNoTool: for any sequence of control requests in which one that
// configures safety was refused, no tool runs, every turn is an error naming the refusal, and
// the session ends with the refusal.
func TestPropertyRefusedSafetyRunsNoTool(t *testing.T) {
	dir := t.TempDir()
	rapid.Check(t, func(rt *rapid.T) {
		reqs := rapid.SliceOfN(controlGen(), 1, 8).Draw(rt, "requests")
		prompts := rapid.IntRange(1, 3).Draw(rt, "prompts")
		var input strings.Builder
		refused, initted := false, false
		for i, r := range reqs {
			input.WriteString(controlLine(fmt.Sprint(i), r[0]))
			switch {
			case r[1] == "refused":
				refused = true
			case r[1] == "maybe" && initted:
				refused = true
			}
			if strings.Contains(r[0], `"initialize"`) {
				initted = true
			}
		}
		input.WriteString(strings.Repeat(promptLine, prompts))
		s := serveInput(rt, dir, input.String(), prompts, nil)
		if !refused {
			if s.err != nil {
				rt.Fatalf("Serve returned %v with nothing refused", s.err)
			}
			return
		}
		if len(s.poked) != 0 {
			rt.Fatalf("the tool ran %v after a refusal", s.poked)
		}
		rs := s.results()
		if len(rs) != prompts {
			rt.Fatalf("%d results for %d prompts", len(rs), prompts)
		}
		for _, r := range rs {
			if r["is_error"] != true || !strings.Contains(fmt.Sprint(r["errors"]), "was refused") {
				rt.Fatalf("result %v, want an error naming the refusal", r)
			}
		}
		if _, ok := errors.AsType[*RefusedError](s.err); !ok {
			rt.Fatalf("Serve returned %v, want a *RefusedError", s.err)
		}
	})
}
