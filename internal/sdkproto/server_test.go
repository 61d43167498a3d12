package sdkproto

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/llmtest"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
)

// wait bounds every wait of these tests; reaching it is a failure, never a measurement.
const wait = 20 * time.Second

func say(text string) llmtest.Answer {
	return llmtest.Respond(llmtest.Response(llm.StopEndTurn, llm.Text(text)))
}

func poke(id, target string) llmtest.Answer {
	return llmtest.Respond(llmtest.Response(llm.StopToolUse,
		llm.ToolUse(id, "Poke", json.RawMessage(`{"target":"`+target+`"}`))))
}

// held is a reply that waits until the request is cancelled or release is closed, and then
// ends the turn with "released".
func held(release <-chan struct{}) llmtest.Answer {
	return func(ctx context.Context, _ *llm.Request) (*llm.Response, error) {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-release:
			return llmtest.Response(llm.StopEndTurn, llm.Text("released")), nil
		}
	}
}

// pokeIn is the input of the test tool. Poke asks for every target (no rule allows it), asks
// about a window ("w…") as a safety check does, and denies "secret" by its own check.
type pokeIn struct {
	Target string `json:"target"`
}

type pokeTool struct {
	tool.Tool
	mu     sync.Mutex
	poked  []string
	called chan struct{}
}

func newPoke() *pokeTool {
	p := &pokeTool{called: make(chan struct{}, 10)}
	p.Tool = tool.Build(tool.Def[pokeIn]{
		Name: "Poke", Description: "pokes a target",
		CheckPermissions: func(_ context.Context, _ *permission.Context, in pokeIn) permission.Decision {
			if in.Target == "secret" {
				return permission.Decision{Behavior: permission.Deny, Message: "Poking secret is forbidden."}
			}
			if strings.HasPrefix(in.Target, "w") {
				return permission.Decision{Behavior: permission.Ask, Message: "Poke " + in.Target + "?",
					Reason: &permission.Reason{Type: permission.ReasonSafetyCheck, Detail: "glass breaks"}}
			}
			return permission.Decision{Behavior: permission.Passthrough}
		},
		Call: func(_ context.Context, in pokeIn, _ *tool.Env) (tool.Result, error) {
			p.mu.Lock()
			p.poked = append(p.poked, in.Target)
			p.mu.Unlock()
			p.called <- struct{}{}
			return tool.TextResult("poked " + in.Target), nil
		},
	})
	return p
}

func (p *pokeTool) targets() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.poked...)
}

// fakeCaller is a Server on pipes with a fake caller.
type fakeCaller struct {
	t     *testing.T
	srv   *Server
	in    *io.PipeWriter
	lines chan map[string]any
	log   *syncBuffer
	done  chan error
	prov  *llmtest.Script
	poke  *pokeTool
	perms *agent.Permissions
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func start(t *testing.T, prov *llmtest.Script, configure func(*Server)) *fakeCaller {
	t.Helper()
	pc, err := permission.New(permission.Config{Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	perms := agent.NewPermissions(pc, nil)
	pk := newPoke()
	bus := &agent.Bus{}
	a := &agent.Agent{Provider: prov, Model: "claude-sonnet-4-5", Tools: []tool.Tool{pk}, Permissions: perms, Bus: bus, Engine: &permission.Engine{}}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &fakeCaller{t: t, in: inW, lines: make(chan map[string]any, 100), log: &syncBuffer{}, done: make(chan error, 1), prov: prov, poke: pk, perms: perms}
	s.srv = &Server{In: inR, Out: outW, Log: s.log,
		Session: Session{Agent: a, Permissions: perms, Bus: bus, ID: "sess",
			Init: InitInfo{Cwd: pc.Cwd(), Tools: []string{"Poke"}, Model: a.Model, Provider: "fake", Version: "test"}},
		Options: Options{PromptStdio: true},
		Handlers: Handlers{Checks: Checks{Permissions: perms, Log: s.log,
			Lookup: func(name string) tool.Tool {
				if name == "Poke" {
					return pk
				}
				return nil
			}}}}
	if configure != nil {
		configure(s.srv)
	}
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("output line is not JSON: %s", sc.Bytes())
				continue
			}
			s.lines <- m
		}
		close(s.lines)
	}()
	go func() {
		err := s.srv.Serve(context.Background())
		outW.Close()
		s.done <- err
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-s.done:
		case <-time.After(wait):
			t.Error("Serve did not return after the input closed")
		}
	})
	return s
}

func (s *fakeCaller) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		s.t.Fatal(err)
	}
}

func (s *fakeCaller) user(text string) {
	s.send(`{"type":"user","message":{"role":"user","content":` + jsonString(text) + `},"parent_tool_use_id":null,"session_id":""}`)
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// next returns the next output line that matches, skipping others.
func (s *fakeCaller) next(match func(map[string]any) bool) map[string]any {
	s.t.Helper()
	timeout := time.After(wait)
	for {
		select {
		case m, ok := <-s.lines:
			if !ok {
				s.t.Fatalf("output ended; log:\n%s", s.log.String())
			}
			if match(m) {
				return m
			}
		case <-timeout:
			s.t.Fatalf("no matching line; log:\n%s", s.log.String())
		}
	}
}

func typed(typ string) func(map[string]any) bool {
	return func(m map[string]any) bool { return m["type"] == typ }
}

func (s *fakeCaller) result() map[string]any { return s.next(typed("result")) }

func (s *fakeCaller) response(id string) map[string]any {
	s.t.Helper()
	m := s.next(func(m map[string]any) bool {
		r, ok := m["response"].(map[string]any)
		return m["type"] == "control_response" && ok && r["request_id"] == id
	})
	return m["response"].(map[string]any)
}

// closeAndWait closes the caller's input and waits for Serve.
func (s *fakeCaller) closeAndWait() error {
	s.t.Helper()
	s.in.Close()
	select {
	case err := <-s.done:
		s.done <- err // for the cleanup
		return err
	case <-time.After(wait):
		s.t.Fatal("Serve did not return after the input closed")
	}
	return nil
}

func TestMalformedLinesAreSkipped(t *testing.T) {
	s := start(t, llmtest.NewScript(say("hello")), nil)
	for _, line := range []string{
		`not json`,
		`[1,2]`,
		`{"type":"bogus"}`,
		`{"type":"user"}`,
		`{"type":"user","message":{"role":"assistant","content":"x"}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"x"}]}}`,
		`{"type":"control_request","request":{"subtype":"interrupt"}}`,
		`   `,
	} {
		s.send(line)
	}
	s.user("hi")
	res := s.result()
	if res["subtype"] != "success" || res["result"] != "hello" {
		t.Errorf("result %v", res)
	}
	if err := s.closeAndWait(); err != nil {
		t.Errorf("Serve: %v", err)
	}
	log := s.log.String()
	for _, want := range []string{"line 1 skipped: not a JSON object", "line 2 skipped", `unknown message type "bogus"`,
		"line 4 skipped: user line without a message object", `role "assistant"`, `unsupported type "tool_result"`, "without request_id"} {
		if !strings.Contains(log, want) {
			t.Errorf("log does not say %q:\n%s", want, log)
		}
	}
	if n := len(s.prov.Requests()); n != 1 {
		t.Errorf("%d model requests, want 1", n)
	}
}

func TestControlRequests(t *testing.T) {
	s := start(t, llmtest.NewScript(), nil)
	tests := []struct {
		request   string
		wantError string // empty: success
		check     func(t *testing.T, resp map[string]any)
	}{
		{request: `{"subtype":"initialize","systemPrompt":["x"]}`, check: func(t *testing.T, resp map[string]any) {
			r := resp["response"].(map[string]any)
			if cmds, _ := r["commands"].([]any); len(cmds) != 1 || cmds[0].(map[string]any)["name"] != "compact" {
				t.Errorf("initialize commands %v, want compact", r["commands"])
			}
			for _, k := range []string{"commands", "agents", "output_style", "available_output_styles", "models", "account", "pid", "permissionMode", "claude_code_version"} {
				if _, ok := r[k]; !ok {
					t.Errorf("initialize response lacks %s: %v", k, r)
				}
			}
		}},
		{request: `{"subtype":"initialize"}`, wantError: "already initialized"},
		{request: `{"subtype":"rewind_files","user_message_id":"x"}`, check: func(t *testing.T, resp map[string]any) {
			if r := resp["response"].(map[string]any); r["canRewind"] != false || !strings.Contains(fmt.Sprint(r["error"]), "not enabled") {
				t.Errorf("rewind_files without checkpoints: %v", r)
			}
		}},
		{request: `{"no":"subtype"}`, wantError: "without subtype"},
		{request: `"string"`, wantError: "invalid control request"},
		{request: `{"subtype":"set_permission_mode","mode":"sideways"}`, wantError: "sideways"},
		{request: `{"subtype":"set_permission_mode","mode":"bypassPermissions"}`, wantError: "cannot switch to bypassPermissions"},
		{request: `{"subtype":"set_permission_mode","mode":"acceptEdits"}`, check: func(t *testing.T, resp map[string]any) {
			if resp["response"].(map[string]any)["mode"] != "acceptEdits" {
				t.Errorf("response %v", resp)
			}
		}},
		{request: `{"subtype":"mcp_status"}`, check: func(t *testing.T, resp map[string]any) {
			if l, ok := resp["response"].(map[string]any)["mcpServers"].([]any); !ok || len(l) != 0 {
				t.Errorf("response %v", resp)
			}
		}},
		{request: `{"subtype":"get_context_usage"}`, check: func(t *testing.T, resp map[string]any) {
			r := resp["response"].(map[string]any)
			cats, _ := r["categories"].([]any)
			ids := map[string]bool{}
			for _, c := range cats {
				ids[fmt.Sprint(c.(map[string]any)["id"])] = true
			}
			for _, id := range []string{"system_prompt", "system_tools", "memory_files", "messages", "autocompact_buffer", "free_space"} {
				if !ids[id] {
					t.Errorf("get_context_usage lacks the %s row: %v", id, r)
				}
			}
			if r["maxTokens"] != float64(200_000) || r["isAutoCompactEnabled"] != true || r["totalTokens"].(float64) <= 0 || r["apiUsage"] != nil {
				t.Errorf("get_context_usage %v", r)
			}
		}},
		{request: `{"subtype":"get_settings"}`, wantError: "not available"},
		{request: `{"subtype":"set_model","model":"claude-haiku-4-5"}`},
		{request: `{"subtype":"interrupt"}`},
	}
	for i, tt := range tests {
		id := fmt.Sprintf("req-%d", i)
		s.send(`{"type":"control_request","request_id":"` + id + `","request":` + tt.request + `}`)
		resp := s.response(id)
		if tt.wantError != "" {
			if resp["subtype"] != "error" || !strings.Contains(fmt.Sprint(resp["error"]), tt.wantError) {
				t.Errorf("%s: response %v, want an error with %q", tt.request, resp, tt.wantError)
			}
			continue
		}
		if resp["subtype"] != "success" {
			t.Errorf("%s: response %v", tt.request, resp)
			continue
		}
		if tt.check != nil {
			tt.check(t, resp)
		}
	}
	if m := s.perms.Context().Mode(); m != permission.ModeAcceptEdits {
		t.Errorf("mode %s after set_permission_mode", m)
	}
}

func TestInitializeRefusesWhatReinsLacks(t *testing.T) {
	for _, tt := range []struct{ req, want string }{
		{`{"subtype":"initialize","hooks":{"PreToolUse":[{"hookCallbackIds":["h1"]}]}}`, "hook callbacks are not supported"},
		{`{"subtype":"initialize","sdkMcpServers":["calc"]}`, "SDK MCP servers are not supported"},
		{`{"subtype":"initialize","agents":{"x":{"description":"d","prompt":"p"}}}`, "custom agents are not supported"},
		{`{"subtype":"initialize","jsonSchema":{"type":"object"}}`, "--json-schema"},
	} {
		s := start(t, llmtest.NewScript(), nil)
		s.send(`{"type":"control_request","request_id":"i","request":` + tt.req + `}`)
		if resp := s.response("i"); resp["subtype"] != "error" || !strings.Contains(fmt.Sprint(resp["error"]), tt.want) {
			t.Errorf("%s: response %v, want an error with %q", tt.req, resp, tt.want)
		}
	}
}

func TestResponseToUnknownRequestIsIgnored(t *testing.T) {
	s := start(t, llmtest.NewScript(say("still here")), nil)
	s.send(`{"type":"control_response","response":{"subtype":"success","request_id":"nobody-asked","response":{"behavior":"allow"}}}`)
	s.send(`{"type":"control_response"}`)
	s.send(`{"type":"control_cancel_request","request_id":"whatever"}`)
	s.user("hi")
	if res := s.result(); res["result"] != "still here" {
		t.Errorf("result %v", res)
	}
	if !strings.Contains(s.log.String(), `unknown request_id "nobody-asked"`) {
		t.Errorf("log:\n%s", s.log.String())
	}
}

// canUseTool waits for the can_use_tool request and returns its id and body.
func (s *fakeCaller) canUseTool() (string, map[string]any) {
	s.t.Helper()
	m := s.next(func(m map[string]any) bool {
		r, ok := m["request"].(map[string]any)
		return m["type"] == "control_request" && ok && r["subtype"] == "can_use_tool"
	})
	return m["request_id"].(string), m["request"].(map[string]any)
}

func (s *fakeCaller) answer(id, response string) {
	s.send(`{"type":"control_response","response":{"subtype":"success","request_id":"` + id + `","response":` + response + `}}`)
}

func TestCanUseTool(t *testing.T) {
	tests := []struct {
		name   string
		answer string
		// again answers the asks about each substituted input, which must show it.
		again      []string
		wantPoked  []string
		wantResult string // the tool_result text the model got
		wantDenied bool
	}{
		{name: "allow", answer: `{"behavior":"allow","updatedInput":{"target":"door"}}`, wantPoked: []string{"door"}, wantResult: "poked door"},
		{name: "allow without updatedInput", answer: `{"behavior":"allow"}`, wantPoked: []string{"door"}, wantResult: "poked door"},
		// The caller's own substitute that only the absence of an allow rule asks about runs.
		{name: "allow with a new input no rule allows", answer: `{"behavior":"allow","updatedInput":{"target":"gate"}}`,
			wantPoked: []string{"gate"}, wantResult: "poked gate"},
		// A window asks as a safety check: the substitute is asked about again, showing what
		// would run.
		{name: "allow with a new input", answer: `{"behavior":"allow","updatedInput":{"target":"window"}}`,
			again: []string{`{"behavior":"allow"}`}, wantPoked: []string{"window"}, wantResult: "poked window"},
		{name: "a new input denied when asked again", answer: `{"behavior":"allow","updatedInput":{"target":"window"}}`,
			again: []string{`{"behavior":"deny","message":"not the window either"}`}, wantResult: "not the window either", wantDenied: true},
		{name: "substitutes without end", answer: `{"behavior":"allow","updatedInput":{"target":"w1"}}`,
			again: []string{`{"behavior":"allow","updatedInput":{"target":"w2"}}`, `{"behavior":"allow","updatedInput":{"target":"w3"}}`,
				`{"behavior":"allow","updatedInput":{"target":"w4"}}`}, wantResult: "kept substituting", wantDenied: true},
		{name: "updatedInput the tool's check denies", answer: `{"behavior":"allow","updatedInput":{"target":"secret"}}`,
			wantResult: "Poking secret is forbidden.", wantDenied: true},
		{name: "updatedInput that does not decode", answer: `{"behavior":"allow","updatedInput":{"target":7}}`,
			wantResult: "the input substituted when the call was answered is invalid", wantDenied: true},
		{name: "deny", answer: `{"behavior":"deny","message":"not the door"}`, wantResult: "not the door", wantDenied: true},
		{name: "deny without message", answer: `{"behavior":"deny"}`, wantResult: defaultDenyMessage, wantDenied: true},
		{name: "unknown behavior", answer: `{"behavior":"maybe"}`, wantResult: `behavior "maybe"`, wantDenied: true},
		{name: "not an object", answer: `"yes"`, wantResult: "not a permission result", wantDenied: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prov := llmtest.NewScript(poke("tu1", "door"), say("ok"))
			s := start(t, prov, nil)
			s.user("poke the door")
			id, req := s.canUseTool()
			if req["tool_name"] != "Poke" || req["tool_use_id"] != "tu1" || req["input"].(map[string]any)["target"] != "door" {
				t.Errorf("can_use_tool %v", req)
			}
			s.answer(id, tt.answer)
			shown := tt.answer
			for _, a := range tt.again {
				id, req := s.canUseTool()
				var want struct{ UpdatedInput map[string]any }
				json.Unmarshal([]byte(shown), &want)
				if fmt.Sprint(req["input"]) != fmt.Sprint(want.UpdatedInput) {
					t.Errorf("asked again about %v, want the substitute %v", req["input"], want.UpdatedInput)
				}
				if why, _ := req["decision_reason"].(string); !strings.Contains(why, "the substituted input meets safetyCheck: glass breaks") {
					t.Errorf("asked again with decision_reason %q", why)
				}
				s.answer(id, a)
				shown = a
			}
			if tt.wantDenied {
				d := s.next(func(m map[string]any) bool { return m["subtype"] == "permission_denied" })
				if d["tool_use_id"] != "tu1" {
					t.Errorf("permission_denied %v", d)
				}
			}
			res := s.result()
			if res["subtype"] != "success" {
				t.Errorf("result %v", res)
			}
			if got := s.poke.targets(); fmt.Sprint(got) != fmt.Sprint(tt.wantPoked) {
				t.Errorf("poked %v, want %v", got, tt.wantPoked)
			}
			got := prov.Requests()[1].Messages[2].Content[0]
			if !strings.Contains(got.Content[0].Text, tt.wantResult) || got.IsError != tt.wantDenied {
				t.Errorf("tool result %+v, want %q (error %v)", got, tt.wantResult, tt.wantDenied)
			}
		})
	}
}

func TestUpdatedPermissionsApplyToTheSession(t *testing.T) {
	prov := llmtest.NewScript(poke("tu1", "door"), poke("tu2", "door"), say("ok"))
	s := start(t, prov, nil)
	s.user("poke twice")
	id, _ := s.canUseTool()
	s.answer(id, `{"behavior":"allow","updatedPermissions":[{"type":"addRules","rules":[{"toolName":"Poke"}],"behavior":"allow","destination":"session"}]}`)
	// The second call is allowed by the new session rule: no second can_use_tool.
	if res := s.result(); res["subtype"] != "success" {
		t.Errorf("result %v", res)
	}
	if got := s.poke.targets(); len(got) != 2 {
		t.Errorf("poked %v, want two calls", got)
	}
	if d := s.perms.Context().ToolWideRule(permission.Allow, "Poke"); d == nil || d.Source != permission.SourceSession {
		t.Errorf("no session allow rule for Poke")
	}
}

func TestUnansweredAskEndsAtEOF(t *testing.T) {
	prov := llmtest.NewScript(poke("tu1", "door"), say("gave up"))
	s := start(t, prov, nil)
	s.user("poke")
	s.canUseTool()
	// The caller never answers; the turn waits until the input ends, then the call is denied
	// and the turn finishes.
	select {
	case <-s.poke.called:
		t.Fatal("the tool ran without an answer")
	case <-time.After(50 * time.Millisecond):
	}
	s.in.Close()
	res := s.result()
	if res["subtype"] != "success" || res["result"] != "gave up" {
		t.Errorf("result %v", res)
	}
	if err := s.closeAndWait(); err != nil {
		t.Errorf("Serve: %v", err)
	}
	got := prov.Requests()[1].Messages[2].Content[0]
	if !got.IsError || !strings.Contains(got.Content[0].Text, "closed its input") {
		t.Errorf("tool result %+v", got)
	}
	if len(s.poke.targets()) != 0 {
		t.Error("the tool ran")
	}
}

func TestUnansweredAskEndsAtInterrupt(t *testing.T) {
	prov := llmtest.NewScript(poke("tu1", "door"), say("next turn"))
	s := start(t, prov, nil)
	s.user("poke")
	askID, _ := s.canUseTool()
	s.send(`{"type":"control_request","request_id":"int","request":{"subtype":"interrupt"}}`)
	cancel := s.next(typed("control_cancel_request"))
	if cancel["request_id"] != askID {
		t.Errorf("cancel %v, want request %s withdrawn", cancel, askID)
	}
	res := s.result()
	if res["subtype"] != agent.SubtypeExecutionError || res["is_error"] != true || len(res["errors"].([]any)) == 0 {
		t.Errorf("result %v", res)
	}
	// A late answer to the withdrawn request changes nothing.
	s.answer(askID, `{"behavior":"allow"}`)
	s.user("again")
	if res := s.result(); res["result"] != "next turn" {
		t.Errorf("second result %v", res)
	}
	if len(s.poke.targets()) != 0 {
		t.Error("the tool ran")
	}
}

func TestDenyWithInterruptEndsTheTurn(t *testing.T) {
	prov := llmtest.NewScript(poke("tu1", "door"))
	s := start(t, prov, nil)
	s.user("poke")
	id, _ := s.canUseTool()
	s.answer(id, `{"behavior":"deny","message":"stop everything","interrupt":true}`)
	d := s.next(func(m map[string]any) bool { return m["subtype"] == "permission_denied" })
	if d["message"] != "stop everything" {
		t.Errorf("permission_denied %v", d)
	}
	user := s.next(typed("user"))
	if !strings.Contains(fmt.Sprint(user["message"]), "stop everything") {
		t.Errorf("the tool result is not the caller's message: %v", user)
	}
	res := s.result()
	if res["is_error"] != true {
		t.Errorf("result %v", res)
	}
	if n := len(prov.Requests()); n != 1 {
		t.Errorf("%d model requests after an interrupting deny, want 1", n)
	}
}

func TestEOFMidTurnFinishesTheTurn(t *testing.T) {
	release := make(chan struct{})
	s := start(t, llmtest.NewScript(held(release)), nil)
	s.user("take your time")
	s.next(typed("system"))
	s.in.Close()
	close(release)
	if res := s.result(); res["result"] != "released" {
		t.Errorf("result %v", res)
	}
	if err := s.closeAndWait(); err != nil {
		t.Errorf("Serve: %v", err)
	}
}

func TestQueuedTurnsEachGetAResult(t *testing.T) {
	prov := llmtest.NewScript(say("one"), say("two"), say("three"))
	s := start(t, prov, func(srv *Server) { srv.Options.Partial = true })
	s.user("1")
	s.user("2")
	s.send(`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"3"}]}}`)
	s.in.Close()
	var got []string
	for range 3 {
		got = append(got, fmt.Sprint(s.result()["result"]))
	}
	if strings.Join(got, ",") != "one,two,three" {
		t.Errorf("results %v", got)
	}
	if n := len(prov.Requests()[2].Messages); n != 5 {
		t.Errorf("third request has %d messages, want 5", n)
	}
}

func TestToolAsker(t *testing.T) {
	tests := []struct {
		name     string
		reply    string
		isError  bool
		want     permission.Behavior
		wantText string
	}{
		{"allow", `{"behavior":"allow","updatedInput":{"target":"door"}}`, false, permission.Allow, ""},
		// The asker passes a substitute on; the engine decides it (TestCanUseTool).
		{"allow with a substitute", `{"behavior":"allow","updatedInput":{"target":"secret"}}`, false, permission.Allow, ""},
		{"deny", `{"behavior":"deny","message":"no pokes today"}`, false, permission.Deny, "no pokes today"},
		{"prose", `Sure, go ahead!`, false, permission.Deny, "not a permission result"},
		{"error result", `{"behavior":"allow"}`, true, permission.Deny, "answered with an error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got json.RawMessage
			prompt := tool.Build(tool.Def[json.RawMessage]{
				Name: "mcp__perm__approve", Schema: nil, RawSchema: json.RawMessage(`{"type":"object"}`),
				Call: func(_ context.Context, in json.RawMessage, _ *tool.Env) (tool.Result, error) {
					got = in
					return tool.Result{Content: []tool.Content{tool.Text(tt.reply)}, IsError: tt.isError}, nil
				},
			})
			pk := newPoke()
			pc, _ := permission.New(permission.Config{Cwd: t.TempDir()})
			a := &ToolAsker{Tool: prompt, Checks: Checks{Permissions: agent.NewPermissions(pc, nil),
				Lookup: func(string) tool.Tool { return pk }}}
			d, err := a.Ask(context.Background(), permission.AskRequest{Tool: "Poke", Input: pokeIn{Target: "door"},
				Decision: permission.Decision{Behavior: permission.Ask}})
			if err != nil {
				t.Fatal(err)
			}
			if d.Behavior != tt.want || !strings.Contains(d.Message, tt.wantText) {
				t.Errorf("decision %+v, want %s with %q", d, tt.want, tt.wantText)
			}
			var in map[string]any
			json.Unmarshal(got, &in)
			if in["tool_name"] != "Poke" || in["input"].(map[string]any)["target"] != "door" {
				t.Errorf("the prompt tool got %s", got)
			}
		})
	}
}

type recorder struct {
	mu    sync.Mutex
	modes []permission.Mode
}

func (r *recorder) AppendMessage(llm.Message) error { return nil }
func (r *recorder) AppendPermissions(st agent.SessionState) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.modes = append(r.modes, st.Mode)
	return nil
}

func TestModeSetBetweenTurnsIsRecorded(t *testing.T) {
	rec := &recorder{}
	s := start(t, llmtest.NewScript(), func(srv *Server) { srv.Session.Agent.Recorder = rec })
	s.send(`{"type":"control_request","request_id":"m","request":{"subtype":"set_permission_mode","mode":"plan"}}`)
	if resp := s.response("m"); resp["subtype"] != "success" {
		t.Fatalf("response %v", resp)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.modes) != 1 || rec.modes[0] != permission.ModePlan {
		t.Errorf("recorded %v", rec.modes)
	}
}
