package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm/llmtest"
)

// TestAgentSDKInitialize drives reins with the real Agent SDK's agents and hooks options, which
// reach reins in the initialize request.
func TestAgentSDKInitialize(t *testing.T) {
	node := nodeSDK(t)
	bin := reinsBinary(t)

	t.Run("agents from initialize run through the Agent tool", func(t *testing.T) {
		e := newE2E(t, bin)
		srv := llmtest.NewAnthropicServer(t,
			llmtest.UseTools(llmtest.Call("Agent", `{"description":"review","prompt":"Review the code","subagent_type":"reviewer"}`)),
			llmtest.Say("No bugs."),
			llmtest.Say("Reviewed."))
		e.anthropic(srv).drive(node, "agents")
		reqs := srv.Requests()
		if len(reqs) != 3 {
			t.Fatalf("%d requests, want 3", len(reqs))
		}
		var sub struct {
			System []struct {
				Text string `json:"text"`
			} `json:"system"`
		}
		if err := reqs[1].Decode(&sub); err != nil {
			t.Fatal(err)
		}
		var system string
		for _, b := range sub.System {
			system += b.Text
		}
		if !strings.Contains(system, "You are the SDK reviewer agent.") {
			t.Errorf("the sub-agent's system prompt is not the SDK definition's: %q", system)
		}
		tools := requestTools(t, reqs[1])
		slices.Sort(tools)
		if !slices.Equal(tools, []string{"Grep", "Read"}) {
			t.Errorf("the sub-agent was offered %v, want its definition's Grep and Read", tools)
		}
		if got := jsonText(toolResults(t, reqs[2])); !strings.Contains(got, "No bugs.") {
			t.Errorf("Agent result %s", got)
		}
	})

	touch := llmtest.UseTools(llmtest.Call("Bash", `{"command":"touch out.txt","description":"Create out.txt"}`))

	t.Run("a PreToolUse hook callback blocks a Bash call", func(t *testing.T) {
		e := newE2E(t, bin)
		srv := llmtest.NewAnthropicServer(t, touch, llmtest.Say("Blocked."))
		e.anthropic(srv).drive(node, "hookDeny")
		if _, err := os.Stat(filepath.Join(e.dir, "out.txt")); err == nil {
			t.Error("the blocked call ran")
		}
		results := toolResults(t, srv.Requests()[1])
		if len(results) != 1 || !results[0].IsError || !strings.Contains(jsonText(results), "blocked by the SDK hook") {
			t.Errorf("the model got %s, want the hook's reason", jsonText(results))
		}
	})

	t.Run("a hook callback's allow does not outrank a deny rule", func(t *testing.T) {
		e := newE2E(t, bin)
		os.MkdirAll(filepath.Join(e.dir, ".claude"), 0o755)
		e.write(".claude/settings.json", `{"permissions":{"deny":["Bash(touch:*)"]}}`)
		srv := llmtest.NewAnthropicServer(t, touch, llmtest.Say("Denied."))
		e.anthropic(srv).drive(node, "hookAllowUnderDeny")
		if _, err := os.Stat(filepath.Join(e.dir, "out.txt")); err == nil {
			t.Error("the call ran under a deny rule")
		}
		results := toolResults(t, srv.Requests()[1])
		if len(results) != 1 || !results[0].IsError {
			t.Errorf("the model got %s, want a denial", jsonText(results))
		}
	})

	t.Run("a PermissionRequest hook callback answers an ask", func(t *testing.T) {
		e := newE2E(t, bin)
		srv := llmtest.NewAnthropicServer(t, touch, llmtest.Say("Done."))
		e.anthropic(srv).drive(node, "hookPermissionRequest")
		if _, err := os.Stat(filepath.Join(e.dir, "out.txt")); err != nil {
			t.Errorf("the call the hook allowed did not run: %v", err)
		}
	})

	t.Run("an MCP server's request for input goes to onElicitation", func(t *testing.T) {
		server := goMCPServer(t)
		e := newE2E(t, bin)
		e.env = append(e.env, "REINS_TEST_MCP_BIN="+server)
		srv := llmtest.NewAnthropicServer(t, llmtest.UseTools(llmtest.Call("mcp__srv__ask", `{}`)), llmtest.Say("Hello Ada."))
		e.anthropic(srv).drive(node, "elicit")
		if got := jsonText(toolResults(t, srv.Requests()[1])); !strings.Contains(got, "action=accept name=Ada") {
			t.Errorf("the tool result is %s, want the caller's answer", got)
		}
	})
}

// TestSDKInitializeRequest: the initialize request's agents and hooks are checked like their
// flag and settings counterparts, and a bad one is an error response naming the problem.
func TestSDKInitializeRequest(t *testing.T) {
	bin := reinsBinary(t)
	for _, tt := range []struct {
		name, request string
		settings      string   // the user's settings file, if any
		wantErr       string   // "" expects success
		wantAgents    []string // on success, among the listed agents
	}{
		{name: "agents are listed beside the built-ins", request: `"agents":{"reviewer":{"description":"Reviews code","prompt":"You review.","tools":["Read"]}}`,
			wantAgents: []string{"reviewer", "Explore", "general-purpose"}},
		{name: "an agent field reins cannot honour", request: `"agents":{"reviewer":{"description":"d","prompt":"p","skills":["pdf"]}}`, wantErr: `agent "reviewer": "skills" cannot be honoured: reins has no skills yet`},
		{name: "an agent naming a server the session does not have", request: `"agents":{"reviewer":{"description":"d","prompt":"p","mcpServers":["x"]}}`,
			wantErr: `agent "reviewer": "mcpServers" names "x", which is not an MCP server of this session (its servers: none)`},
		{name: "an agent's inline server", request: `"agents":{"reviewer":{"description":"d","prompt":"p","mcpServers":[{"x":{"command":"true"}}]}}`,
			wantErr: `"mcpServers"[0] (x): an inline server config cannot be honoured`},
		{name: "an agent's maxTurns and background", request: `"agents":{"reviewer":{"description":"d","prompt":"p","maxTurns":2,"background":false,"mcpServers":[]}}`,
			wantAgents: []string{"reviewer"}},
		{name: "an invalid agent name", request: `"agents":{"bad name":{"description":"d","prompt":"p"}}`, wantErr: "invalid agent name"},
		{name: "an agent without a prompt", request: `"agents":{"x":{"description":"d"}}`, wantErr: `needs a "description" and a "prompt"`},
		{name: "an agent permission mode that does not exist", request: `"agents":{"x":{"description":"d","prompt":"p","permissionMode":"yolo"}}`, wantErr: "yolo"},
		{name: "hook callbacks for a known event", request: `"hooks":{"PreToolUse":[{"matcher":"Bash","hookCallbackIds":["hook_0"]}]}`},
		{name: "hook callbacks for an event reins does not run", request: `"hooks":{"TeammateIdle":[{"hookCallbackIds":["hook_0"]}]}`, wantErr: `event "TeammateIdle" is not supported`},
		{name: "hook callbacks under disableAllHooks", settings: `{"disableAllHooks": true}`, request: `"hooks":{"PreToolUse":[{"hookCallbackIds":["hook_0"]}]}`, wantErr: "disableAllHooks is set"},
		{name: "an in-process SDK MCP server whose name reins cannot use", request: `"sdkMcpServers":["a b"]`, wantErr: "may contain only letters"},
		{name: "an in-process SDK MCP server with a per-tool policy", request: `"sdkMcpServers":["calc"],"sdkMcpServerConfigs":{"calc":{"tools":[{"name":"add","policy":"always_deny"}]}}`, wantErr: "per-tool policy"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newE2E(t, bin)
			if tt.settings != "" {
				e.userSettings(tt.settings)
			}
			srv := llmtest.NewAnthropicServer(t)
			e.stdin = `{"type":"control_request","request_id":"1","request":{"subtype":"initialize",` + tt.request + `}}` + "\n"
			e.anthropic(srv).run("--input-format", "stream-json", "--output-format", "stream-json", "--verbose")
			if tt.wantErr != "" {
				// A refused initialize fails the session closed: exit 1 at the end of input.
				e.wantCode(1)
			} else {
				e.wantCode(0)
			}
			lines := e.lines()
			if len(lines) == 0 {
				t.Fatalf("no output; stderr %s", e.stderr)
			}
			resp, _ := lines[0]["response"].(map[string]any)
			if tt.wantErr != "" {
				if resp["subtype"] != "error" || !strings.Contains(fmt.Sprint(resp["error"]), tt.wantErr) {
					t.Errorf("response %v, want an error with %q", resp, tt.wantErr)
				}
				return
			}
			if resp["subtype"] != "success" {
				t.Fatalf("response %v", resp)
			}
			body, _ := resp["response"].(map[string]any)
			var names []string
			for _, a := range body["agents"].([]any) {
				names = append(names, a.(map[string]any)["name"].(string))
			}
			for _, want := range tt.wantAgents {
				if !slices.Contains(names, want) {
					t.Errorf("agents %v, want %s among them", names, want)
				}
			}
		})
	}
}

// TestAgentSDKRefusedInitializeRunsNothing: the real SDK with a PreToolUse hook meant to stop
// rm beside a hook reins refuses: the initialize request is refused, so the turn never runs,
// the model is never asked and the file stays.
func TestAgentSDKRefusedInitializeRunsNothing(t *testing.T) {
	node := nodeSDK(t)
	e := newE2E(t, reinsBinary(t))
	e.write("keep.txt", "keep me\n")
	srv := llmtest.NewAnthropicServer(t,
		llmtest.UseTools(llmtest.Call("Bash", `{"command":"rm -f keep.txt","description":"Remove keep.txt"}`)),
		llmtest.Say("Removed."))
	e.anthropic(srv).drive(node, "hookBesideRefused")
	t.Logf("the SDK saw: %s", e.stdout)
	if _, err := os.Stat(filepath.Join(e.dir, "keep.txt")); err != nil {
		t.Errorf("keep.txt is gone: %v", err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("the model was asked %d times in a session whose initialize was refused", n)
	}
}

// TestAgentSDKMCPServersDeliveredInInitialize: mcpServersDelivery 'initialize' with a real
// stdio server: reins reads the request before starting (--await-initialize), the server starts
// as an --mcp-config one, and its tool is called end to end under an allow rule.
func TestAgentSDKMCPServersDeliveredInInitialize(t *testing.T) {
	node := nodeSDK(t)
	everything := npmServer(t, "server-everything")
	e := newE2E(t, reinsBinary(t))
	e.env = append(e.env, "REINS_TEST_MCP_EVERYTHING="+everything, "ENABLE_TOOL_SEARCH=false")
	srv := llmtest.NewAnthropicServer(t,
		llmtest.UseTools(llmtest.Call("mcp__everything__echo", `{"message":"from initialize"}`)),
		llmtest.Say("Echoed."))
	e.anthropic(srv).drive(node, "mcpInitialize")
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if got := jsonText(toolResults(t, reqs[1])); !strings.Contains(got, "Echo: from initialize") {
		t.Errorf("the tool result is %s", got)
	}
}

// TestSDKExitCodes: an SDK session that reached the end of its input exits with docs/cli.md's
// code for its last turn, and 1 when it failed closed.
func TestSDKExitCodes(t *testing.T) {
	bin := reinsBinary(t)
	const prompt = `{"type":"user","message":{"role":"user","content":"read it"},"parent_tool_use_id":null,"session_id":""}` + "\n"
	const initialize = `{"type":"control_request","request_id":"1","request":{"subtype":"initialize"}}` + "\n"
	read := llmtest.UseTools(llmtest.Call("Read", `{"file_path":"hello.txt"}`))
	for _, tt := range []struct {
		name, stdin string
		flags       []string
		turns       []llmtest.Turn
		code        int
		requests    int
		stderr      string
	}{
		{name: "success", stdin: prompt, turns: []llmtest.Turn{llmtest.Say("hi")}, code: 0, requests: 1},
		{name: "the last turn stopped at --max-turns", stdin: prompt, flags: []string{"--max-turns", "1"}, turns: []llmtest.Turn{read, read}, code: 7, requests: 1,
			stderr: "maximum number of turns (1)"},
		{name: "an earlier turn stopped at --max-turns", stdin: prompt + prompt, flags: []string{"--max-turns", "1"}, turns: []llmtest.Turn{read, llmtest.Say("hi")}, code: 0, requests: 2},
		{name: "a prompt before the announced initialize", stdin: prompt + initialize, flags: []string{"--await-initialize"}, turns: []llmtest.Turn{read}, code: 1,
			stderr: "a user message came before the initialize request that --await-initialize announced"},
		{name: "the announced initialize first", stdin: initialize + prompt, flags: []string{"--await-initialize"}, turns: []llmtest.Turn{llmtest.Say("hi")}, code: 0, requests: 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newE2E(t, bin)
			e.write("hello.txt", "hello\n")
			srv := llmtest.NewAnthropicServer(t, tt.turns...)
			e.stdin = tt.stdin
			e.anthropic(srv).run(append([]string{"--input-format", "stream-json", "--output-format", "stream-json", "--verbose"}, tt.flags...)...)
			e.wantCode(tt.code)
			if n := len(srv.Requests()); n != tt.requests {
				t.Errorf("%d model requests, want %d", n, tt.requests)
			}
			if !strings.Contains(e.stderr, tt.stderr) {
				t.Errorf("stderr %q, want %q", e.stderr, tt.stderr)
			}
		})
	}
}

// TestAgentSDKInProcessMCPServer drives reins with the real Agent SDK's createSdkMcpServer: the
// server runs in the SDK's process and its tool's calls travel as mcp_message requests.
func TestAgentSDKInProcessMCPServer(t *testing.T) {
	node := nodeSDK(t)
	bin := reinsBinary(t)
	echo := llmtest.UseTools(llmtest.Call("mcp__local__x", `{"text":"hi"}`))

	t.Run("a call an allow rule covers runs in the caller's process", func(t *testing.T) {
		e := newE2E(t, bin)
		srv := llmtest.NewAnthropicServer(t, echo, llmtest.Say("Echoed."))
		e.anthropic(srv).drive(node, "sdkMcpAllow")
		if !slices.Contains(requestTools(t, srv.Requests()[0]), "mcp__local__x") {
			t.Errorf("the model was offered %v, want mcp__local__x", requestTools(t, srv.Requests()[0]))
		}
		results := toolResults(t, srv.Requests()[1])
		if len(results) != 1 || results[0].IsError || !strings.Contains(jsonText(results), "x says hi") {
			t.Errorf("the model got %s, want the handler's answer", jsonText(results))
		}
	})

	t.Run("a deny rule keeps the tool from running", func(t *testing.T) {
		e := newE2E(t, bin)
		os.MkdirAll(filepath.Join(e.dir, ".claude"), 0o755)
		e.write(".claude/settings.json", `{"permissions":{"deny":["mcp__local__x"]}}`)
		srv := llmtest.NewAnthropicServer(t, echo, llmtest.Say("Denied."))
		e.anthropic(srv).drive(node, "sdkMcpDeny")
		if slices.Contains(requestTools(t, srv.Requests()[0]), "mcp__local__x") {
			t.Errorf("the model was offered the denied tool: %v", requestTools(t, srv.Requests()[0]))
		}
		results := toolResults(t, srv.Requests()[1])
		if len(results) != 1 || !results[0].IsError || strings.Contains(jsonText(results), "x says") {
			t.Errorf("the model got %s, want an error", jsonText(results))
		}
	})

	t.Run("a PreToolUse hook callback beside the server still stops rm", func(t *testing.T) {
		e := newE2E(t, bin)
		e.write("keep.txt", "keep\n")
		srv := llmtest.NewAnthropicServer(t, echo,
			llmtest.UseTools(llmtest.Call("Bash", `{"command":"rm -f keep.txt","description":"Remove keep.txt"}`)),
			llmtest.Say("Done."))
		e.anthropic(srv).drive(node, "sdkMcpHook")
		if _, err := os.Stat(filepath.Join(e.dir, "keep.txt")); err != nil {
			t.Errorf("keep.txt is gone: %v", err)
		}
		if got := jsonText(toolResults(t, srv.Requests()[1])); !strings.Contains(got, "x says hi") {
			t.Errorf("the in-process tool's result is %s", got)
		}
		if got := jsonText(toolResults(t, srv.Requests()[2])); !strings.Contains(got, "rm is blocked by the SDK hook") {
			t.Errorf("the rm call's result is %s, want the hook's reason", got)
		}
	})
}

// TestAgentSDKAgentWithMCPServersAndMaxTurns: the real SDK defines an agent with mcpServers and
// maxTurns: its sub-agent is offered the named server's tools and no other server's, and stops
// after its one turn, which the parent reads in the Agent call's result.
func TestAgentSDKAgentWithMCPServersAndMaxTurns(t *testing.T) {
	node := nodeSDK(t)
	server := goMCPServer(t)
	e := newE2E(t, reinsBinary(t))
	e.env = append(e.env, "REINS_TEST_MCP_BIN="+server, "ENABLE_TOOL_SEARCH=false")
	srv := llmtest.NewAnthropicServer(t,
		llmtest.UseTools(llmtest.Call("Agent", `{"description":"look up","prompt":"Look it up","subagent_type":"lookup"}`)),
		llmtest.UseTools(llmtest.Call("mcp__docs__echo", `{"text":"from the sub-agent"}`)),
		llmtest.Say("Looked up."))
	e.anthropic(srv).drive(node, "agentMcpMaxTurns")
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3 (the sub-agent's second turn must not happen)", len(reqs))
	}
	parent, sub := requestTools(t, reqs[0]), requestTools(t, reqs[1])
	if !slices.Contains(parent, "mcp__docs__echo") || !slices.Contains(parent, "mcp__other__echo") {
		t.Errorf("the main agent was offered %v, want both servers' tools", parent)
	}
	if !slices.Contains(sub, "mcp__docs__echo") || slices.ContainsFunc(sub, func(n string) bool { return strings.HasPrefix(n, "mcp__other__") }) {
		t.Errorf("the sub-agent was offered %v, want docs' tools and none of other's", sub)
	}
	if got := jsonText(toolResults(t, reqs[2])); !strings.Contains(got, "Agent lookup stopped after 1 turns") {
		t.Errorf("Agent result %s, want the sub-agent stopped at its maxTurns", got)
	}
}

// TestAgentSDKRefusedAgentFieldRunsNothing: an agent field reins cannot honour refuses the
// initialize request, and the session fails closed: the model is never asked.
func TestAgentSDKRefusedAgentFieldRunsNothing(t *testing.T) {
	node := nodeSDK(t)
	e := newE2E(t, reinsBinary(t))
	srv := llmtest.NewAnthropicServer(t, llmtest.Say("Never."))
	e.anthropic(srv).drive(node, "agentRefusedField")
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("the model was asked %d times in a session whose initialize was refused", n)
	}
}
