package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm/llmtest"
)

func jsonText(b any) string {
	data, _ := json.Marshal(b)
	return string(data)
}

// exploreTODO writes main.go with a TODO into e's project and returns the script in which the
// main agent sends an Explore sub-agent to find it: the sub-agent greps and reads, answers
// "The TODO is in main.go.", and the main agent says "Found it: main.go.".
func exploreTODO(t *testing.T, e *e2e) *llmtest.Server {
	file := e.write("main.go", "package main\n\n// TODO: say hello\nfunc main() {}\n")
	return llmtest.NewAnthropicServer(t,
		llmtest.UseTools(llmtest.Call("Agent", `{"description":"find the TODO","prompt":"Where is the TODO?","subagent_type":"Explore"}`)),
		llmtest.UseTools(llmtest.Call("Grep", fmt.Sprintf(`{"pattern":"TODO","path":%q,"output_mode":"content"}`, e.dir))),
		llmtest.UseTools(llmtest.Call("Read", fmt.Sprintf(`{"file_path":%q}`, file))),
		llmtest.Say("The TODO is in main.go."),
		llmtest.Say("Found it: main.go."))
}

func TestSubAgentE2E(t *testing.T) {
	bin := reinsBinary(t)

	t.Run("Explore runs Grep and Read; its text is the result", func(t *testing.T) {
		e := newE2E(t, bin)
		srv := exploreTODO(t, e)
		e.anthropic(srv).run("-p", "--output-format", "stream-json", "--verbose", "where is the TODO?")
		e.wantCode(0)

		reqs := srv.Requests()
		if len(reqs) != 5 {
			t.Fatalf("%d requests, want 5", len(reqs))
		}
		sub := requestTools(t, reqs[1])
		for _, forbidden := range []string{"Agent", "Edit", "Write", "AskUserQuestion", "TaskOutput"} {
			if slices.Contains(sub, forbidden) {
				t.Errorf("Explore was offered %s: %v", forbidden, sub)
			}
		}
		if got := jsonText(toolResults(t, reqs[2])); !strings.Contains(got, "TODO: say hello") {
			t.Errorf("Grep result %s", got)
		}
		if got := jsonText(toolResults(t, reqs[3])); !strings.Contains(got, "func main") {
			t.Errorf("Read result %s", got)
		}
		if got := jsonText(toolResults(t, reqs[4])); !strings.Contains(got, "The TODO is in main.go.") || !strings.Contains(got, "agentId: a") {
			t.Errorf("Agent result %s", got)
		}

		// Every line of the sub-agent carries the Agent call's id.
		var withParent int
		for _, line := range strings.Split(strings.TrimSpace(e.stdout), "\n") {
			var l struct {
				Type   string  `json:"type"`
				Parent *string `json:"parent_tool_use_id"`
			}
			if err := json.Unmarshal([]byte(line), &l); err != nil {
				t.Fatalf("line %q: %v", line, err)
			}
			if l.Parent != nil {
				if *l.Parent != "toolu_llmtest_1_0" {
					t.Errorf("parent_tool_use_id %q", *l.Parent)
				}
				if l.Type == "assistant" || l.Type == "user" {
					withParent++
				}
			}
		}
		if withParent != 5 {
			t.Errorf("%d stream-json messages carry the parent id, want the sub-agent's 3 assistant and 2 user messages", withParent)
		}

		// The sub-agent's transcript sits beside the session's.
		matches, _ := filepath.Glob(filepath.Join(e.home, ".reins", "projects", "*", "*", "subagents", "agent-*.jsonl"))
		if len(matches) != 1 {
			t.Fatalf("sub-agent transcripts: %v", matches)
		}
		data, _ := os.ReadFile(matches[0])
		if !strings.Contains(string(data), "Where is the TODO?") || !strings.Contains(string(data), "The TODO is in main.go.") {
			t.Errorf("transcript:\n%s", data)
		}
	})

	t.Run("an Agent(Explore) deny rule refuses the type", func(t *testing.T) {
		e := newE2E(t, bin)
		srv := llmtest.NewAnthropicServer(t,
			llmtest.UseTools(llmtest.Call("Agent", `{"description":"d","prompt":"p","subagent_type":"Explore"}`)),
			llmtest.Say("not allowed"))
		e.anthropic(srv).run("-p", "--disallowedTools", "Agent(Explore)", "--", "go")
		e.wantCode(0)
		got := jsonText(toolResults(t, srv.Requests()[1]))
		if !strings.Contains(got, "Agent type 'Explore' has been denied by permission rule 'Agent(Explore)' from cliArg (--disallowedTools).") {
			t.Errorf("result %s", got)
		}
	})

	t.Run("a custom agent with tools Read, Grep cannot call Bash", func(t *testing.T) {
		e := newE2E(t, bin)
		os.MkdirAll(filepath.Join(e.dir, ".reins", "agents"), 0o755)
		e.write(".reins/agents/reviewer.md", "---\nname: reviewer\ndescription: Reviews code\ntools: Read, Grep\n---\nYou review code.\n")
		srv := llmtest.NewAnthropicServer(t,
			llmtest.UseTools(llmtest.Call("Agent", `{"description":"d","prompt":"p","subagent_type":"reviewer"}`)),
			llmtest.UseTools(llmtest.Call("Bash", `{"command":"touch pwned"}`)),
			llmtest.Say("I cannot run commands."),
			llmtest.Say("ok"))
		e.anthropic(srv).run("-p", "--allowedTools", "Bash", "--", "go")
		e.wantCode(0)
		reqs := srv.Requests()
		if got := requestTools(t, reqs[1]); !slices.Equal(got, []string{"Grep", "Read"}) {
			t.Errorf("reviewer offered %v", got)
		}
		if got := jsonText(toolResults(t, reqs[2])); !strings.Contains(got, "No such tool available: Bash") {
			t.Errorf("Bash answered %s", got)
		}
		if _, err := os.Stat(filepath.Join(e.dir, "pwned")); err == nil {
			t.Error("the reviewer ran Bash")
		}
	})

	t.Run("a background agent finishes while the parent works; TaskOutput returns its text", func(t *testing.T) {
		e := newE2E(t, bin)
		e.write("a.go", "package a\n")
		agents := `{"counter": {"description": "Counts Go files", "prompt": "You are the background counter."}}`
		srv := llmtest.NewAnthropicServer(t,
			llmtest.UseTools(llmtest.Call("Agent", `{"description":"count","prompt":"count the Go files","subagent_type":"counter","run_in_background":true}`)),
			llmtest.Reply(func(req llmtest.Request) llmtest.Turn {
				text := req.LastToolResultText()
				_, rest, ok := strings.Cut(text, "agentId: ")
				id, _, _ := strings.Cut(rest, " ")
				if !ok || !strings.Contains(text, "Async agent launched") {
					t.Errorf("launch result %q", text)
				}
				return llmtest.UseTools(
					llmtest.Call("Glob", `{"pattern":"*.go"}`),
					llmtest.Call("TaskOutput", `{"task_id":"`+id+`","timeout":30000}`))
			}),
			llmtest.Say("The counter says there is one Go file."))
		srv.Side("You are the background counter.",
			llmtest.UseTools(llmtest.Call("Glob", `{"pattern":"**/*.go"}`)),
			llmtest.Say("There is 1 Go file."))
		e.anthropic(srv).run("-p", "--agents", agents, "count")
		e.wantCode(0)
		if e.stdout != "The counter says there is one Go file.\n" {
			t.Errorf("stdout %q stderr %q", e.stdout, e.stderr)
		}
		reqs := srv.Requests()
		final := jsonText(toolResults(t, reqs[len(reqs)-1]))
		if !strings.Contains(final, "There is 1 Go file.") || !strings.Contains(final, "local_agent") {
			t.Errorf("TaskOutput result %s", final)
		}
	})

	t.Run("hooks see a sub-agent's calls and a PermissionRequest hook answers a background agent", func(t *testing.T) {
		e := newE2E(t, bin)
		log := filepath.Join(e.home, "pre.log")
		pre := e.hookScript("pre.sh", "in=$(cat)\necho \"$in\" >> "+log+"\necho \"$in\" | grep -q '\"rm ' && { echo 'no rm here' >&2; exit 2; }\nexit 0\n")
		approve := e.hookScript("approve.sh", `echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}'`+"\n")
		e.userSettings(`{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "` + pre + `"}]}],
			"PermissionRequest": [{"matcher": "Write", "hooks": [{"type": "command", "command": "` + approve + `"}]}]}}`)
		agents := `{"fg": {"description": "d", "prompt": "You are the foreground helper."}, "bg": {"description": "d", "prompt": "You are the background writer."}}`
		srv := llmtest.NewAnthropicServer(t,
			llmtest.UseTools(llmtest.Call("Agent", `{"description":"d","prompt":"p","subagent_type":"fg"}`)),
			llmtest.UseTools(llmtest.Call("Agent", `{"description":"w","prompt":"p","subagent_type":"bg","run_in_background":true}`)),
			llmtest.Reply(func(req llmtest.Request) llmtest.Turn {
				_, rest, _ := strings.Cut(req.LastToolResultText(), "agentId: ")
				id, _, _ := strings.Cut(rest, " ")
				return llmtest.UseTools(llmtest.Call("TaskOutput", `{"task_id":"`+id+`","timeout":30000}`))
			}),
			llmtest.Say("done"))
		srv.Side("You are the foreground helper.",
			llmtest.UseTools(llmtest.Call("Bash", `{"command":"rm -rf keep"}`)),
			llmtest.Say("blocked"))
		srv.Side("You are the background writer.",
			llmtest.UseTools(llmtest.Call("Write", fmt.Sprintf(`{"file_path":%q,"content":"hi"}`, filepath.Join(e.dir, "bg.txt")))),
			llmtest.Say("wrote it"))
		os.MkdirAll(filepath.Join(e.dir, "keep"), 0o755)
		e.anthropic(srv).run("-p", "--agents", agents, "--allowedTools", "Bash", "--", "go")
		e.wantCode(0)
		if _, err := os.Stat(filepath.Join(e.dir, "keep")); err != nil {
			t.Error("the sub-agent's rm ran despite the PreToolUse hook")
		}
		data, _ := os.ReadFile(log)
		if !strings.Contains(string(data), `"rm -rf keep"`) {
			t.Errorf("the PreToolUse hook did not see the sub-agent's call:\n%s", data)
		}
		if b, err := os.ReadFile(filepath.Join(e.dir, "bg.txt")); err != nil || string(b) != "hi" {
			t.Errorf("the background agent's Write, approved by the PermissionRequest hook: %q, %v", b, err)
		}
	})

	t.Run("agents list reports a bad definition with its position", func(t *testing.T) {
		e := newE2E(t, bin)
		os.MkdirAll(filepath.Join(e.dir, ".reins", "agents"), 0o755)
		e.write(".reins/agents/bad.md", "---\nname: bad\ndescription: d\ntool: Read\n---\nbody\n")
		e.run("agents", "list")
		e.wantCode(0)
		want := filepath.Join(e.dir, ".reins", "agents", "bad.md") + `:4:1: unknown key "tool" (did you mean "tools"?)`
		if !strings.Contains(e.stderr, want) {
			t.Errorf("stderr %q, want %q", e.stderr, want)
		}
		for _, name := range []string{"Explore", "Plan", "general-purpose"} {
			if !strings.Contains(e.stdout, name) {
				t.Errorf("%s not listed:\n%s", name, e.stdout)
			}
		}
	})
}
