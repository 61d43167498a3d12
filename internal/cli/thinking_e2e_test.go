package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm/llmtest"
)

// thinkingScenario reads a file after thinking, thinks again with a redacted block, and
// answers. The fake refuses a request whose tool loop lost a thinking block or changed it.
func thinkingScenario(file string) []llmtest.Turn {
	return []llmtest.Turn{
		{Thinking: []string{"The user wants the ", "greeting; read it."}, Signature: "EqQBCkgIARABGAIiQL+sig==",
			ToolCalls: []llmtest.ToolCall{llmtest.Call("Read", fmt.Sprintf(`{"file_path":%q}`, file))}},
		{Thinking: []string{"It says hello."}, Signature: "EpYCsig2==", RedactedThinking: "EmwKAhgBEgy3va3pzix",
			ToolCalls: []llmtest.ToolCall{llmtest.Call("Read", fmt.Sprintf(`{"file_path":%q,"limit":1}`, file))}},
		llmtest.Say("It says hello."),
	}
}

// TestThinkingE2E: reins -p with a thinking budget against the fake API over a tool loop of
// thinking turns with signatures: every request enables thinking with the budget, each
// continuation sends the thinking blocks back unchanged (the fake refuses it otherwise), the
// session file keeps them, and stream-json prints them as Claude Code does. The budget comes
// from --max-thinking-tokens (the Agent SDK's flag) or MAX_THINKING_TOKENS. A bad one, and no
// budget at all, are testdata/script/thinking-budget-errors.txtar.
func TestThinkingE2E(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the end-to-end tests use a POSIX shell")
	}
	bin := reinsBinary(t)
	for _, how := range []string{"flag", "env"} {
		t.Run(how, func(t *testing.T) {
			e := newE2E(t, bin)
			file := e.write("greeting.txt", "Hello, world.\n")
			srv := llmtest.NewAnthropicServer(t, thinkingScenario(file)...)
			e.anthropic(srv)
			args := []string{"-p", "--output-format", "stream-json", "--verbose"}
			if how == "flag" {
				args = append(args, "--max-thinking-tokens", "2048")
			} else {
				e.env = append(e.env, "MAX_THINKING_TOKENS=2048")
			}
			e.run(append(args, "--", "What does the greeting say?")...)
			e.wantCode(0)
			reqs := srv.Requests()
			if len(reqs) != 3 {
				t.Fatalf("%d requests, want 3\nstderr: %s", len(reqs), e.stderr)
			}
			for i, r := range reqs {
				var body struct {
					MaxTokens int `json:"max_tokens"`
					Thinking  struct {
						Type         string `json:"type"`
						BudgetTokens int    `json:"budget_tokens"`
					} `json:"thinking"`
				}
				if err := r.Decode(&body); err != nil {
					t.Fatal(err)
				}
				if body.Thinking.Type != "enabled" || body.Thinking.BudgetTokens != 2048 || body.MaxTokens <= 2048 {
					t.Errorf("request %d: thinking %+v, max_tokens %d", i, body.Thinking, body.MaxTokens)
				}
			}
			last := string(reqs[2].Body)
			for _, want := range []string{
				`{"signature":"EqQBCkgIARABGAIiQL+sig==","thinking":"The user wants the greeting; read it.","type":"thinking"}`,
				`{"signature":"EpYCsig2==","thinking":"It says hello.","type":"thinking"},{"data":"EmwKAhgBEgy3va3pzix","type":"redacted_thinking"}`,
			} {
				if !strings.Contains(last, want) {
					t.Errorf("the last request lacks %s", want)
				}
			}
			for _, want := range []string{
				`{"type":"thinking","thinking":"The user wants the greeting; read it.","signature":"EqQBCkgIARABGAIiQL+sig=="}`,
				`{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix"}`,
			} {
				if !strings.Contains(e.stdout, want) {
					t.Errorf("stream-json lacks %s:\n%s", want, e.stdout)
				}
			}
			if !strings.Contains(e.stdout, `"result":"It says hello."`) {
				t.Errorf("no result line:\n%s", e.stdout)
			}
			// The session file keeps the signed blocks, so a resumed session sends them back.
			sessions, _ := filepath.Glob(filepath.Join(e.home, ".reins", "projects", "*", "*.jsonl"))
			if len(sessions) != 1 {
				t.Fatalf("session files %v", sessions)
			}
			b, _ := os.ReadFile(sessions[0])
			if !strings.Contains(string(b), `"signature":"EpYCsig2=="`) || !strings.Contains(string(b), `"data":"EmwKAhgBEgy3va3pzix"`) {
				t.Errorf("the session file lost the thinking blocks:\n%s", b)
			}
		})
	}
}

// TestThinkingTUIE2E: the chat with MAX_THINKING_TOKENS, in tmux against the fake API: each
// thinking block is one collapsed line with its length, ctrl+o shows the text, the tool loop
// goes on (the fake refuses a continuation that lost its signed blocks), and the chat resumed
// with --continue shows the thinking again.
func TestThinkingTUIE2E(t *testing.T) {
	bin := reinsBinary(t)
	e := newE2E(t, bin)
	file := e.write("greeting.txt", "Hello, world.\n")
	srv := llmtest.NewAnthropicServer(t, thinkingScenario(file)...)
	e.anthropic(srv)
	e.env = append(e.env, "MAX_THINKING_TOKENS=2048")
	r := startTUI(t, e)
	r.waitFor("default mode")
	r.typeText("What does the greeting say?")
	r.keys("Enter")
	s := r.waitFor("It says hello.", "✻ Thinking… (37 chars · ctrl+o to expand)", "✻ Thinking… (redacted by the API)")
	if strings.Contains(s, "The user wants the greeting") {
		t.Errorf("thinking shown before ctrl+o:\n%s", s)
	}
	r.keys("C-o")
	r.waitFor("The user wants the greeting; read it.")
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
	r.quit()
	r2 := startTUI(t, e, "--continue")
	r2.waitFor("Resumed session", "✻ Thinking… (37 chars · ctrl+o to expand)")
	r2.quit()
}

// TestThinkingAgentSDK: the real Agent SDK with thinking: {type: "enabled", budgetTokens}
// drives reins, which sends the budget and returns the signed thinking to the SDK.
func TestThinkingAgentSDK(t *testing.T) {
	node := nodeSDK(t)
	e := newE2E(t, reinsBinary(t))
	file := e.write("hello.txt", "hello\n")
	srv := llmtest.NewAnthropicServer(t,
		llmtest.Turn{Thinking: []string{"Read the file."}, Signature: "EqQBsdk==",
			ToolCalls: []llmtest.ToolCall{llmtest.Call("Read", fmt.Sprintf(`{"file_path":%q}`, file))}},
		llmtest.Say("It says hello."))
	e.anthropic(srv).drive(node, "thinking")
	if body := string(srv.Requests()[0].Body); !strings.Contains(body, `"thinking":{"budget_tokens":2048,"type":"enabled"}`) {
		t.Errorf("the first request does not carry the SDK's budget: %s", body)
	}
}
