package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reinsdev/reins/hooks"
	"github.com/reinsdev/reins/llm/llmtest"
)

// touchScript is a turn that runs `touch made.txt` (allowed by --allowedTools) and ends.
func touchScript() []llmtest.Turn {
	return []llmtest.Turn{
		llmtest.UseTools(llmtest.Call("Bash", `{"command":"touch made.txt","description":"make a file"}`)),
		llmtest.Say("done"),
	}
}

// hookTypeRun runs the real binary with one PreToolUse hook of the given JSON object on Bash
// and reports whether the command ran and what the model was told.
func hookTypeRun(t *testing.T, bin string, srv *llmtest.Server, hook string, env []string, extra ...string) (ran bool, told string, e *e2e) {
	t.Helper()
	e = newE2E(t, bin).anthropic(srv)
	e.env = append(e.env, env...)
	e.userSettings(fmt.Sprintf(`{%s"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [%s]}]}}`, settingsPrefix(extra), hook))
	e.run(append(append([]string{"-p", "--allowedTools", "Bash(touch:*)", "Bash(rm:*)"}, flagArgs(extra)...), "--", "go")...)
	e.wantCode(0)
	_, err := os.Stat(filepath.Join(e.dir, "made.txt"))
	reqs := srv.Requests()
	var main []llmtest.Request
	for _, r := range reqs {
		if !strings.Contains(string(r.Body), "You are a hook of a coding agent") {
			main = append(main, r)
		}
	}
	if len(main) < 2 {
		t.Fatalf("%d requests of the main conversation\nstderr: %s", len(main), e.stderr)
	}
	rs := toolResults(t, main[1])
	if len(rs) != 1 {
		t.Fatalf("tool results %+v", rs)
	}
	return err == nil, rs[0].Content[0].Text, e
}

// settingsPrefix and flagArgs split the extra arguments: "settings:…" is more of the user
// settings document, anything else a flag.
func settingsPrefix(extra []string) string {
	var out string
	for _, x := range extra {
		if s, ok := strings.CutPrefix(x, "settings:"); ok {
			out += s + ", "
		}
	}
	return out
}

func flagArgs(extra []string) []string {
	return slices.DeleteFunc(slices.Clone(extra), func(x string) bool { return strings.HasPrefix(x, "settings:") })
}

// An http hook served by a local server: its answer decides when the URL is allowed; a URL
// allowedHttpHookUrls does not list, a 500, a timeout and an answer that is not hook JSON each
// block the call.
func TestHTTPHookE2E(t *testing.T) {
	bin := reinsBinary(t)
	deny := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"the policy service says no"}}`
	tests := []struct {
		name     string
		status   int
		body     string
		delay    time.Duration
		settings func(url string) string
		ran      bool
		told     string
		calls    int64
	}{
		{name: "allowed, no objection", status: 200, body: "{}", ran: true, calls: 1,
			settings: func(u string) string {
				return fmt.Sprintf(`"allowedHttpHookUrls": [%q]`, u[:strings.LastIndex(u, ":")]+":*")
			}},
		{name: "allowed, deny", status: 200, body: deny, ran: false, told: "the policy service says no", calls: 1},
		{name: "URL not allowed", status: 200, body: "{}", ran: false, told: "not allowed by allowedHttpHookUrls", calls: 0,
			settings: func(string) string { return `"allowedHttpHookUrls": ["https://hooks.example.com/*"]` }},
		{name: "500", status: 500, body: "{}", ran: false, told: "500", calls: 1},
		{name: "timeout", status: 200, body: "{}", delay: 5 * time.Second, ran: false, told: "timed out", calls: 1},
		{name: "invalid JSON", status: 200, body: `{"hookSpecificOutput": {`, ran: false, told: "not valid hook JSON", calls: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int64
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				b, _ := io.ReadAll(r.Body)
				var in map[string]any
				if json.Unmarshal(b, &in) != nil || in["tool_name"] != "Bash" || r.Header.Get("X-Team") != "core" {
					http.Error(w, "not a PreToolUse event of Bash", http.StatusBadRequest)
					return
				}
				select {
				case <-time.After(tt.delay):
				case <-r.Context().Done():
					return
				}
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			}))
			defer hs.Close()
			var extra []string
			if tt.settings != nil {
				extra = append(extra, "settings:"+tt.settings(hs.URL))
			}
			hook := fmt.Sprintf(`{"type": "http", "url": %q, "timeout": 1, "headers": {"X-Team": "$TEAM"}, "allowedEnvVars": ["TEAM"]}`, hs.URL+"/pre-tool-use")
			srv := llmtest.NewAnthropicServer(t, touchScript()...)
			ran, told, e := hookTypeRun(t, bin, srv, hook, []string{"TEAM=core"}, extra...)
			if ran != tt.ran || !strings.Contains(told, tt.told) {
				t.Errorf("ran %v, told %q; want ran %v, told %q\nstderr: %s", ran, told, tt.ran, tt.told, e.stderr)
			}
			if calls.Load() != tt.calls {
				t.Errorf("the hook's URL was called %d times, want %d", calls.Load(), tt.calls)
			}
		})
	}
}

// An mcp_tool hook on a real stdio MCP server: the tool's answer decides; a tool that answers
// isError or text that is not hook JSON blocks the call.
func TestMCPToolHookE2E(t *testing.T) {
	bin := reinsBinary(t)
	server, err := filepath.Abs(filepath.Join("testdata", "hookpolicy-server.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	config := fmt.Sprintf(`{"mcpServers": {"policy": {"command": "node", "args": [%q]}}}`, server)
	tests := []struct {
		name, tool, command string
		ran                 bool
		told                string
	}{
		{"no objection", "check", "touch made.txt", true, ""},
		{"denied", "check", "rm -f made.txt; touch made.txt", false, "policy server refuses: rm -f made.txt; touch made.txt"},
		{"isError", "broken", "touch made.txt", false, "the policy database is down"},
		{"not hook JSON", "chatty", "touch made.txt", false, "not hook JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewAnthropicServer(t,
				llmtest.UseTools(llmtest.Call("Bash", fmt.Sprintf(`{"command":%q}`, tt.command))), llmtest.Say("done"))
			hook := fmt.Sprintf(`{"type": "mcp_tool", "server": "policy", "tool": %q, "input": {"command": "${tool_input.command}"}}`, tt.tool)
			ran, told, e := hookTypeRun(t, bin, srv, hook, nil, "--mcp-config", config)
			if ran != tt.ran || !strings.Contains(told, tt.told) {
				t.Errorf("ran %v, told %q; want ran %v, told %q\nstderr: %s", ran, told, tt.ran, tt.told, e.stderr)
			}
		})
	}
}

// Prompt and agent hooks against the fake API: the model's {"ok": false} blocks with its
// reason, {"ok": true} lets the call run, and an answer that is not the JSON blocks; an agent
// hook's sub-agent reads with its read-only tools before it answers.
func TestModelHooksE2E(t *testing.T) {
	bin := reinsBinary(t)
	judge := hooks.JudgeInstructions[:40]
	for _, tt := range []struct {
		name, answer string
		ran          bool
		told         string
	}{
		{"ok", `{"ok": true}`, true, ""},
		{"not ok", `{"ok": false, "reason": "no new files on Fridays"}`, false, "no new files on Fridays"},
		{"garbage", `I think it is fine.`, false, "not one JSON object"},
	} {
		t.Run("prompt "+tt.name, func(t *testing.T) {
			srv := llmtest.NewAnthropicServer(t, touchScript()...).Side(judge, llmtest.Say(tt.answer))
			ran, told, e := hookTypeRun(t, bin, srv, `{"type": "prompt", "prompt": "Refuse new files. Event: $ARGUMENTS"}`, nil)
			if ran != tt.ran || !strings.Contains(told, tt.told) {
				t.Errorf("ran %v, told %q; want ran %v, told %q\nstderr: %s", ran, told, tt.ran, tt.told, e.stderr)
			}
			side := sideRequests(srv, judge)
			if len(side) != 1 || !strings.Contains(string(side[0].Body), `touch made.txt`) || len(requestTools(t, side[0])) != 0 {
				t.Errorf("the judge's requests: %d", len(side))
			}
		})
	}
	t.Run("agent", func(t *testing.T) {
		srv := llmtest.NewAnthropicServer(t, touchScript()...)
		var notes string
		srv.Side(judge,
			llmtest.Reply(func(llmtest.Request) llmtest.Turn {
				return llmtest.UseTools(llmtest.Call("Read", fmt.Sprintf(`{"file_path":%q}`, notes)))
			}),
			llmtest.Say(`{"ok": false, "reason": "the team notes forbid it"}`))
		e := newE2E(t, bin).anthropic(srv)
		notes = e.write("NOTES.md", "Never create made.txt.\n")
		e.userSettings(`{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "agent", "prompt": "Check the team notes in NOTES.md. $ARGUMENTS"}]}]}}`)
		e.run("-p", "--allowedTools", "Bash(touch:*)", "--", "go")
		e.wantCode(0)
		if _, err := os.Stat(filepath.Join(e.dir, "made.txt")); err == nil {
			t.Error("the agent hook's refusal did not stop the command")
		}
		side := sideRequests(srv, judge)
		if len(side) != 2 {
			t.Fatalf("%d requests of the hook's agent\nstderr: %s", len(side), e.stderr)
		}
		if got := requestTools(t, side[0]); !sameSet(got, []string{"Read", "Glob", "Grep"}) {
			t.Errorf("the hook's agent had the tools %v, want only the read-only ones", got)
		}
		if rs := toolResults(t, side[1]); len(rs) != 1 || !strings.Contains(rs[0].Content[0].Text, "Never create made.txt") {
			t.Errorf("the hook's agent did not read the notes: %+v", rs)
		}
		var main []llmtest.Request
		for _, r := range srv.Requests() {
			if !strings.Contains(string(r.Body), judge) {
				main = append(main, r)
			}
		}
		if rs := toolResults(t, main[1]); !strings.Contains(rs[0].Content[0].Text, "the team notes forbid it") {
			t.Errorf("the model was told %+v", rs)
		}
	})
}

func sideRequests(srv *llmtest.Server, match string) []llmtest.Request {
	var out []llmtest.Request
	for _, r := range srv.Requests() {
		if strings.Contains(string(r.Body), match) {
			out = append(out, r)
		}
	}
	return out
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
