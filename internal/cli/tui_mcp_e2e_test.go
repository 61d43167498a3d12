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

// TestInteractiveMCPApproval: in a trusted project, each server of .mcp.json nobody approved
// is put to the person before the chat starts; the answer is recorded as `reins mcp approve`
// records it, and the server starts (its tools reach the model) or stays off. An untrusted
// project's servers never prompt and never start.
func TestInteractiveMCPApproval(t *testing.T) {
	server := goMCPServer(t)
	bin := reinsBinary(t)
	project := func(t *testing.T, trusted bool) (*e2e, *llmtest.Server) {
		e := newE2E(t, bin)
		e.write(".mcp.json", fmt.Sprintf(`{"mcpServers": {"srv": {"command": %q, "env": {"REINS_TEST_MCP_SERVER": "basic"}}}}`, server))
		if trusted {
			e.run("trust", e.dir)
			e.wantCode(0)
		}
		srv := llmtest.NewAnthropicServer(t, llmtest.Say("hello there"), llmtest.Say("hello again"))
		e.anthropic(srv)
		e.env = append(e.env, "ENABLE_TOOL_SEARCH=false")
		return e, srv
	}
	// chat sends one message and returns the tools of the request it made.
	chat := func(t *testing.T, r *tmuxRun, srv *llmtest.Server, reply string) []string {
		r.waitFor("default mode")
		r.typeText("hi")
		r.keys("Enter")
		r.waitFor(reply)
		reqs := srv.Requests()
		return requestTools(t, reqs[len(reqs)-1])
	}
	recorded := func(t *testing.T, e *e2e) string {
		data, err := os.ReadFile(filepath.Join(e.home, ".reins.json"))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}

	t.Run("yes starts the server and is remembered", func(t *testing.T) {
		e, srv := project(t, true)
		r := startTUI(t, e)
		r.waitFor("New MCP server found in .mcp.json: srv", "Use this MCP server?", "stdio: "+server)
		r.keys("1")
		if tools := chat(t, r, srv, "hello there"); !slices.Contains(tools, "mcp__srv__echo") {
			t.Errorf("the approved server's tools did not reach the model: %v", tools)
		}
		r.quit()
		if s := recorded(t, e); !strings.Contains(s, `"enabledMcpjsonServers"`) || !strings.Contains(s, `"srv"`) {
			t.Errorf("the approval was not recorded as reins mcp approve does:\n%s", s)
		}
		// The next session does not ask again and starts the server.
		r2 := startTUI(t, e)
		tools := chat(t, r2, srv, "hello again")
		if strings.Contains(r2.screen(), "Use this MCP server?") || !slices.Contains(tools, "mcp__srv__echo") {
			t.Errorf("the second session asked again or lost the server: %v\n%s", tools, r2.screen())
		}
		r2.quit()
	})

	t.Run("no keeps it off and is remembered", func(t *testing.T) {
		e, srv := project(t, true)
		r := startTUI(t, e)
		r.waitFor("Use this MCP server?")
		r.keys("3")
		if tools := chat(t, r, srv, "hello there"); slices.Contains(tools, "mcp__srv__echo") {
			t.Errorf("the refused server started: %v", tools)
		}
		r.quit()
		if s := recorded(t, e); !strings.Contains(s, `"disabledMcpjsonServers"`) {
			t.Errorf("the refusal was not recorded as reins mcp approve --reject does:\n%s", s)
		}
	})

	t.Run("an untrusted project never asks", func(t *testing.T) {
		e, srv := project(t, false)
		r := startTUI(t, e)
		// The trust dialog names the server; No keeps the project untrusted.
		r.waitFor("Do you trust the files in this folder?", "srv: "+server)
		r.keys("2")
		tools := chat(t, r, srv, "hello there")
		if strings.Contains(r.screen(), "Use this MCP server?") {
			t.Errorf("an untrusted project's server was put to the person")
		}
		if slices.Contains(tools, "mcp__srv__echo") {
			t.Errorf("an untrusted project's server started: %v", tools)
		}
		r.quit()
		if _, err := os.Stat(filepath.Join(e.home, ".reins.json")); err == nil {
			if s := recorded(t, e); strings.Contains(s, "McpjsonServers") {
				t.Errorf("an answer was recorded for an untrusted project:\n%s", s)
			}
		}
	})
}

// TestInteractiveMCPElicitation: a server's request for input during a call becomes a form in
// the chat; what the person types goes back to the server, whose result reaches the model.
func TestInteractiveMCPElicitation(t *testing.T) {
	server := goMCPServer(t)
	bin := reinsBinary(t)
	for _, tc := range []struct {
		name, keys, want string
	}{
		{"accept", "Enter", "action=accept name=Ada"},
		{"decline", "Right", "action=decline"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newE2E(t, bin)
			srv := llmtest.NewAnthropicServer(t, llmtest.UseTools(llmtest.Call("mcp__srv__ask", `{}`)), llmtest.Say("Thanks."))
			e.anthropic(srv)
			e.env = append(e.env, "ENABLE_TOOL_SEARCH=false")
			config := fmt.Sprintf(`{"mcpServers": {"srv": {"command": %q, "env": {"REINS_TEST_MCP_SERVER": "basic"}}}}`, server)
			r := startTUI(t, e, "--mcp-config", config, "--allowedTools", "mcp__srv__ask")
			r.waitFor("default mode")
			r.typeText("ask me")
			r.keys("Enter")
			r.waitFor("MCP server srv asks for input", "What is your name?", "Accept")
			r.typeText("Ada")
			r.keys("Enter") // to the answers: Accept
			if tc.keys != "Enter" {
				r.keys(tc.keys)
			}
			r.keys("Enter")
			r.waitFor("Thanks.")
			reqs := srv.Requests()
			results, err := reqs[len(reqs)-1].ToolResults()
			if err != nil || len(results) != 1 {
				t.Fatalf("tool results: %v %+v", err, results)
			}
			var text string
			for _, b := range results[0].Content {
				text += b.Text
			}
			if !strings.Contains(text, tc.want) {
				t.Errorf("the server's result = %q, want %q in it", text, tc.want)
			}
			r.quit()
		})
	}
}

// TestInteractiveMCPPrompts: /help lists the servers' prompts, and /mcp__srv__greet runs the
// server's prompt with the words after it and sends its messages as the person's turn.
func TestInteractiveMCPPrompts(t *testing.T) {
	server := goMCPServer(t)
	bin := reinsBinary(t)
	e := newE2E(t, bin)
	srv := llmtest.NewAnthropicServer(t, llmtest.Say("Hello, Ada!"))
	e.anthropic(srv)
	e.env = append(e.env, "ENABLE_TOOL_SEARCH=false")
	config := fmt.Sprintf(`{"mcpServers": {"srv": {"command": %q, "env": {"REINS_TEST_MCP_SERVER": "basic"}}}}`, server)
	r := startTUI(t, e, "--mcp-config", config)
	r.waitFor("default mode")
	r.typeText("/help")
	r.keys("Enter")
	r.waitFor("/mcp__srv__greet NAME [STYLE]", "Greets someone.")
	r.typeText("/mcp__srv__greet Ada very warmly")
	r.keys("Enter")
	r.waitFor("Hello, Ada!")
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests, want 1", len(reqs))
	}
	var body struct {
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := reqs[0].Decode(&body); err != nil {
		t.Fatal(err)
	}
	last := body.Messages[len(body.Messages)-1]
	var text string
	for _, c := range last.Content {
		text += c.Text
	}
	if last.Role != "user" || text != "Say hello to Ada.\n\nStyle: very warmly" {
		t.Errorf("the turn sent %s %q, want the prompt's messages", last.Role, text)
	}
	r.quit()
}
