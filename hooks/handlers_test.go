package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reinsdev/reins/permission"
)

// hookServer is an http hook's service: it records what it was sent and answers as told.
type hookServer struct {
	*httptest.Server
	mu      sync.Mutex
	bodies  []string
	headers []http.Header
	status  int
	body    string
	delay   time.Duration
}

func newHookServer(t *testing.T, status int, body string) *hookServer {
	s := &hookServer{status: status, body: body}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.bodies = append(s.bodies, string(b))
		s.headers = append(s.headers, r.Header.Clone())
		status, body, delay := s.status, s.body, s.delay
		s.mu.Unlock()
		if delay > 0 {
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
				return
			}
		}
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "want a JSON POST", http.StatusBadRequest)
			return
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *hookServer) requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.bodies)
}

func preToolUseVerdict(t *testing.T, h Handler, timeout time.Duration) PreToolUseResult {
	t.Helper()
	r, err := NewRunner([]Hook{{Event: PreToolUse, Handler: h, Origin: "settings.json:3:7", Timeout: timeout}})
	if err != nil {
		t.Fatal(err)
	}
	return r.PreToolUse(context.Background(), Common{}, bashCall)
}

// An http hook's answer decides when its URL is allowed; a URL the settings do not allow, a
// 500, a timeout, a redirect and an answer that is not hook JSON each block the call, as a
// command hook's exit 2 would.
func TestHTTPHook(t *testing.T) {
	deny := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"policy says no"}}`
	allow := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}`
	tests := []struct {
		name    string
		status  int
		body    string
		delay   time.Duration
		policy  func(url string) HTTPPolicy
		want    permission.Behavior
		reason  string
		noCalls bool
	}{
		{name: "allowed URL, deny answer", status: 200, body: deny, want: permission.Deny, reason: "policy says no"},
		{name: "allowed URL, allow answer", status: 200, body: allow, want: permission.Allow},
		{name: "allowed URL, empty answer", status: 200, body: "", want: permission.Passthrough},
		{name: "allowed by a pattern", status: 200, body: allow, want: permission.Allow,
			policy: func(u string) HTTPPolicy {
				return HTTPPolicy{URLs: []AllowList{{Values: []string{u[:len(u)-6] + "*"}, Origin: "u"}}}
			}},
		{name: "URL not allowed", status: 200, body: allow, want: permission.Deny, reason: "not allowed by allowedHttpHookUrls", noCalls: true,
			policy: func(string) HTTPPolicy {
				return HTTPPolicy{URLs: []AllowList{{Values: []string{"https://hooks.example.com/*"}, Origin: "/etc/reins/managed-settings.json:2:3"}}}
			}},
		{name: "an empty list allows nothing", status: 200, body: allow, want: permission.Deny, noCalls: true,
			policy: func(string) HTTPPolicy { return HTTPPolicy{URLs: []AllowList{{Origin: "x"}}} }},
		{name: "allowed by one list, not the other", status: 200, body: allow, want: permission.Deny, noCalls: true,
			policy: func(u string) HTTPPolicy {
				return HTTPPolicy{URLs: []AllowList{{Values: []string{u}, Origin: "user"}, {Values: []string{"https://x/*"}, Origin: "project"}}}
			}},
		{name: "500", status: 500, body: allow, want: permission.Deny, reason: "500"},
		{name: "404 with a JSON body", status: 404, body: allow, want: permission.Deny},
		{name: "redirect", status: 302, body: allow, want: permission.Deny, reason: "302"},
		{name: "timeout", status: 200, body: allow, delay: 2 * time.Second, want: permission.Deny, reason: "timed out"},
		{name: "invalid JSON", status: 200, body: `{"hookSpecificOutput":{"permissionDecision":"allow"`, want: permission.Deny, reason: "not valid hook JSON"},
		{name: "plain text", status: 200, body: "looks fine to me", want: permission.Deny, reason: "not hook JSON"},
		{name: "wrong shape", status: 200, body: `{"hookSpecificOutput":{"permissionDecision":"maybe"}}`, want: permission.Deny},
		{name: "two objects", status: 200, body: allow + allow, want: permission.Deny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newHookServer(t, tt.status, tt.body)
			srv.delay = tt.delay
			h := &HTTP{URL: srv.URL + "/check"}
			if tt.policy != nil {
				h.Policy = tt.policy(h.URL)
			}
			res := preToolUseVerdict(t, h, 300*time.Millisecond)
			if res.Verdict.Behavior != tt.want {
				t.Fatalf("verdict %s (%s), want %s", res.Verdict.Behavior, res.Verdict.Reason, tt.want)
			}
			if !strings.Contains(res.Verdict.Reason, tt.reason) {
				t.Errorf("reason %q does not say %q", res.Verdict.Reason, tt.reason)
			}
			if tt.noCalls && srv.requests() != 0 {
				t.Errorf("a URL the settings do not allow was called %d times", srv.requests())
			}
			if !tt.noCalls && srv.requests() != 1 {
				t.Fatalf("%d requests, want 1", srv.requests())
			}
			if !tt.noCalls {
				var in map[string]any
				if err := json.Unmarshal([]byte(srv.bodies[0]), &in); err != nil || in["tool_name"] != "Bash" || in["hook_event_name"] != "PreToolUse" {
					t.Errorf("the hook was not sent the event: %v %s", err, srv.bodies[0])
				}
			}
		})
	}
}

// Header values get only the variables that both the hook and every httpHookAllowedEnvVars
// list allow; others become empty, and a value that would smuggle a line break is refused.
func TestHTTPHookHeaders(t *testing.T) {
	env := map[string]string{"TOKEN": "t0k", "SECRET": "s3cret", "TEAM": "core", "EVIL": "a\r\nX-Injected: 1"}
	srv := newHookServer(t, 200, "")
	h := &HTTP{URL: srv.URL, Getenv: func(k string) string { return env[k] },
		Headers:        []Header{{"Authorization", "Bearer ${TOKEN}"}, {"X-Secret", "$SECRET"}, {"X-Team", "$TEAM-$TOKEN"}, {"X-Cost", "$5 flat"}},
		AllowedEnvVars: []string{"TOKEN", "SECRET", "TEAM"},
		Policy:         HTTPPolicy{EnvVars: []AllowList{{Values: []string{"TOKEN", "TEAM"}, Origin: "policy"}}}}
	if res := preToolUseVerdict(t, h, time.Second); res.Verdict.Behavior != permission.Passthrough {
		t.Fatalf("verdict %s: %s", res.Verdict.Behavior, res.Verdict.Reason)
	}
	got := srv.headers[0]
	for k, want := range map[string]string{"Authorization": "Bearer t0k", "X-Secret": "", "X-Team": "core-t0k", "X-Cost": "$5 flat"} {
		if got.Get(k) != want {
			t.Errorf("%s = %q, want %q", k, got.Get(k), want)
		}
	}
	h.Headers = []Header{{"X-Evil", "$EVIL"}}
	h.AllowedEnvVars = []string{"EVIL"}
	h.Policy = HTTPPolicy{}
	if res := preToolUseVerdict(t, h, time.Second); res.Verdict.Behavior != permission.Deny || !strings.Contains(res.Verdict.Reason, "line break") {
		t.Errorf("a header with a line break: %s %q", res.Verdict.Behavior, res.Verdict.Reason)
	}
}

func TestHTTPHookURLChecks(t *testing.T) {
	for _, u := range []string{"ftp://x/y", "http:///nohost", "https://good.example@evil.example/", "::"} {
		res := preToolUseVerdict(t, &HTTP{URL: u}, time.Second)
		if res.Verdict.Behavior != permission.Deny {
			t.Errorf("%q: verdict %s, want deny", u, res.Verdict.Behavior)
		}
	}
}

func TestGlobMatch(t *testing.T) {
	tests := []struct {
		pat, s string
		want   bool
	}{
		{"https://a.example/*", "https://a.example/hook", true},
		{"https://a.example/*", "https://a.example.evil/hook", false},
		{"https://*.example/h", "https://x.y.example/h", true},
		{"https://a.example/h", "https://a.example/h", true},
		{"https://a.example/h", "https://a.example/h2", false},
		{"*", "anything", true},
		{"a*b*c", "abc", true},
		{"a*b*c", "acb", false},
	}
	for _, tt := range tests {
		if got := globMatch(tt.pat, tt.s); got != tt.want {
			t.Errorf("globMatch(%q, %q) = %v", tt.pat, tt.s, got)
		}
	}
}

// fakeCaller is an MCP server's tool, for mcp_tool hooks.
type fakeCaller struct {
	text    string
	isError bool
	err     error
	got     map[string]any
}

func (c *fakeCaller) CallHookTool(_ context.Context, server, tool string, args map[string]any) (string, bool, error) {
	c.got = args
	return c.text, c.isError, c.err
}

func TestMCPToolHook(t *testing.T) {
	deny := `{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"mcp says no"}}`
	tests := []struct {
		name   string
		input  string
		caller *fakeCaller
		want   permission.Behavior
	}{
		{"deny answer", `{"cmd":"${tool_input.command}","n":1}`, &fakeCaller{text: deny}, permission.Deny},
		{"empty answer", `{}`, &fakeCaller{}, permission.Passthrough},
		{"isError", `{}`, &fakeCaller{text: "boom", isError: true}, permission.Deny},
		{"call error", `{}`, &fakeCaller{err: errors.New("server gone")}, permission.Deny},
		{"garbage", `{}`, &fakeCaller{text: "sure"}, permission.Deny},
		{"missing field", `{"p":"${tool_input.file_path}"}`, &fakeCaller{}, permission.Deny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := preToolUseVerdict(t, &MCPTool{Server: "policy", Tool: "check", Input: json.RawMessage(tt.input), Caller: tt.caller}, time.Second)
			if res.Verdict.Behavior != tt.want {
				t.Fatalf("verdict %s (%s), want %s", res.Verdict.Behavior, res.Verdict.Reason, tt.want)
			}
		})
	}
	c := &fakeCaller{}
	preToolUseVerdict(t, &MCPTool{Server: "s", Tool: "t", Input: json.RawMessage(`{"whole":"${tool_input}","text":"cmd=${tool_input.command}","list":["${tool_name}"]}`), Caller: c}, time.Second)
	if c.got["text"] != "cmd=rm -rf /tmp/x" || c.got["list"].([]any)[0] != "Bash" || c.got["whole"].(map[string]any)["command"] != "rm -rf /tmp/x" {
		t.Errorf("substituted input: %#v", c.got)
	}
	if res := preToolUseVerdict(t, &MCPTool{Server: "s", Tool: "t"}, time.Second); res.Verdict.Behavior != permission.Deny {
		t.Errorf("no MCP servers: verdict %s", res.Verdict.Behavior)
	}
}

// fakeJudge is a model answering prompt and agent hooks.
type fakeJudge struct {
	answer string
	err    error
	wait   bool
	got    JudgeRequest
}

func (j *fakeJudge) Judge(ctx context.Context, req JudgeRequest) (string, error) {
	j.got = req
	if j.wait {
		<-ctx.Done()
		return "", ctx.Err()
	}
	return j.answer, j.err
}

func TestModelHooks(t *testing.T) {
	tests := []struct {
		answer string
		err    error
		wait   bool
		want   permission.Behavior
		reason string
	}{
		{answer: `{"ok": true}`, want: permission.Passthrough},
		{answer: "```json\n{\"ok\": false, \"reason\": \"rm is not allowed here\"}\n```", want: permission.Deny, reason: "rm is not allowed here"},
		{answer: `{"ok": false}`, want: permission.Deny},
		{answer: `Sure! {"ok": true}`, want: permission.Deny, reason: "not one JSON object"},
		{answer: `{"ok": "yes"}`, want: permission.Deny},
		{answer: `{"reason": "no ok"}`, want: permission.Deny},
		{answer: `{"ok": true}{"ok": false}`, want: permission.Deny},
		{err: errors.New("overloaded"), want: permission.Deny, reason: "overloaded"},
		{wait: true, want: permission.Deny, reason: "timed out"},
	}
	for _, agent := range []bool{false, true} {
		for _, tt := range tests {
			j := &fakeJudge{answer: tt.answer, err: tt.err, wait: tt.wait}
			res := preToolUseVerdict(t, &Model{Agent: agent, Prompt: "Is this safe? $ARGUMENTS", Judge: j}, 100*time.Millisecond)
			if res.Verdict.Behavior != tt.want || !strings.Contains(res.Verdict.Reason, tt.reason) {
				t.Errorf("agent %v, answer %q, err %v: verdict %s %q, want %s %q", agent, tt.answer, tt.err, res.Verdict.Behavior, res.Verdict.Reason, tt.want, tt.reason)
			}
			if !strings.Contains(j.got.Prompt, `"tool_name":"Bash"`) || strings.Contains(j.got.Prompt, "$ARGUMENTS") || j.got.Agent != agent {
				t.Errorf("the judge was asked %+v", j.got)
			}
		}
	}
}

// A fail-closed handler's failure blocks where exit 2 would, and nowhere else: a failing Stop
// hook does not keep the agent running, a failing SessionStart hook is a message.
func TestFailClosedEvents(t *testing.T) {
	broken := &Model{Prompt: "x", Judge: &fakeJudge{err: errors.New("down")}}
	r, err := NewRunner([]Hook{
		{Event: UserPromptSubmit, Handler: broken}, {Event: Stop, Handler: broken}, {Event: SessionStart, Handler: broken},
		{Event: PostToolUse, Handler: broken}, {Event: PermissionRequest, Handler: broken},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if p := r.UserPromptSubmit(ctx, Common{}, "hi"); !p.Blocked {
		t.Error("a failing UserPromptSubmit judge let the prompt through")
	}
	if s := r.Stop(ctx, Common{}, false); s.Block || len(s.Messages) != 1 {
		t.Errorf("a failing Stop judge: %+v", s)
	}
	if rep, texts := r.SessionStart(ctx, Common{}, "startup", "m"); len(texts) != 0 || len(rep.Messages) != 1 {
		t.Errorf("a failing SessionStart judge: %+v %v", rep, texts)
	}
	if p := r.PostToolUse(ctx, Common{}, bashCall, "ok"); len(p.Feedback) != 1 {
		t.Errorf("a failing PostToolUse judge gave no feedback: %+v", p)
	}
	a := &Asker{Runner: r}
	d, err := a.Ask(ctx, permission.AskRequest{Tool: "Bash", Input: map[string]any{"command": "ls"}})
	if err != nil || d.Behavior != permission.Deny || d.Reason == nil || d.Reason.Type != permission.ReasonHook {
		t.Errorf("a failing PermissionRequest judge: %+v %v", d, err)
	}
}
