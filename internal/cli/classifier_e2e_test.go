package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/reinsdev/reins/classifier"
	"github.com/reinsdev/reins/llm/llmtest"
)

// classifierMatch tells the classifier's requests apart from the agent's.
var classifierMatch = classifier.SystemPrompt[:60]

func verdictTurn(decision, reason string) llmtest.Turn {
	return llmtest.UseTools(llmtest.Call(classifier.VerdictTool, fmt.Sprintf(`{"decision":%q,"reason":%q}`, decision, reason)))
}

// classifierRequests are the requests the fake server took for the classifier.
func classifierRequests(srv *llmtest.Server) (judge, main []llmtest.Request) {
	for _, r := range srv.Requests() {
		if strings.Contains(string(r.Body), "You are the auto-mode classifier of Reins") {
			judge = append(judge, r)
		} else {
			main = append(main, r)
		}
	}
	return judge, main
}

// TestClassifierE2E runs reins -p --permission-mode auto against the fake Anthropic API.
func TestClassifierE2E(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the end-to-end tests use a POSIX shell")
	}
	bin := reinsBinary(t)
	injection, err := os.ReadFile(filepath.Join("..", "..", "classifier", "testdata", "redteam", "notes-ignore-previous.txt"))
	if err != nil {
		t.Fatal(err)
	}

	t.Run("judged by a separate request that names the action", func(t *testing.T) {
		e := newE2E(t, bin)
		notes := e.write("notes.txt", string(injection))
		srv := llmtest.NewAnthropicServer(t,
			llmtest.UseTools(llmtest.Call("Read", fmt.Sprintf(`{"file_path":%q}`, notes))),
			llmtest.UseTools(llmtest.Call("Bash", `{"command":"ln -s x built.txt"}`)),
			llmtest.Say("done"),
		).Side(classifierMatch, verdictTurn("allow", "creates a file in the project"))
		e.anthropic(srv).run("-p", "--permission-mode", "auto", "--output-format", "json", "--", "read the notes and build")
		e.wantCode(0)
		if _, err := os.Lstat(filepath.Join(e.dir, "built.txt")); err != nil {
			t.Fatalf("the allowed command did not run: %v", err)
		}
		judge, main := classifierRequests(srv)
		if len(judge) != 1 {
			t.Fatalf("%d classifier requests, want 1 (the Read inside the project must not reach it)", len(judge))
		}
		body := string(judge[0].Body)
		if !strings.Contains(body, "ln -s x built.txt") {
			t.Errorf("classifier request: %s", body)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(injection)), "\n") {
			if line = strings.TrimSpace(line); len(line) > 10 && strings.Contains(body, line) {
				t.Errorf("the classifier's request contains the file's %q", line)
			}
		}
		if !strings.Contains(string(main[len(main)-1].Body), "IGNORE ALL PREVIOUS INSTRUCTIONS") {
			t.Error("the agent never read the file: the check above proves nothing")
		}
		var res struct {
			ModelUsage map[string]struct {
				InputTokens int `json:"inputTokens"`
			} `json:"modelUsage"`
			Usage struct {
				InputTokens int `json:"input_tokens"`
			} `json:"usage"`
		}
		if err := json.Unmarshal([]byte(e.stdout), &res); err != nil {
			t.Fatalf("%v\n%s", err, e.stdout)
		}
		if res.ModelUsage["claude-haiku-4-5"].InputTokens != 10 || res.Usage.InputTokens != 40 {
			t.Errorf("the classifier's tokens are not the run's: %s", e.stdout)
		}
	})

	t.Run("an unusable answer blocks", func(t *testing.T) {
		e := newE2E(t, bin)
		srv := llmtest.NewAnthropicServer(t,
			llmtest.UseTools(llmtest.Call("Bash", `{"command":"ln -s x built.txt"}`)),
			llmtest.Say("gave up"),
		).Side(classifierMatch, llmtest.Say(`{"decision":"allow","reason":"in text"}`))
		e.anthropic(srv).run("-p", "--permission-mode", "auto", "--output-format", "json", "--", "build")
		e.wantCode(0)
		if _, err := os.Lstat(filepath.Join(e.dir, "built.txt")); err == nil {
			t.Fatal("a command ran on an answer that is no verdict")
		}
		if !strings.Contains(e.stdout, `"permission_denials":[{"tool_name":"Bash"`) {
			t.Errorf("no denial in %s", e.stdout)
		}
		_, main := classifierRequests(srv)
		if got := string(main[len(main)-1].Body); !strings.Contains(got, "unparseable answer") {
			t.Errorf("the model is not told why: %s", got)
		}
	})

	t.Run("three consecutive blocks abort a headless run", func(t *testing.T) {
		e := newE2E(t, bin)
		srv := llmtest.NewAnthropicServer(t,
			llmtest.UseTools(llmtest.Call("Bash", `{"command":"ln -s x a"}`)),
			llmtest.UseTools(llmtest.Call("Bash", `{"command":"ln -s x b"}`)),
			llmtest.UseTools(llmtest.Call("Bash", `{"command":"ln -s x c"}`)),
			llmtest.Say("never reached"),
		).Side(classifierMatch, verdictTurn("block", "no"), verdictTurn("block", "no"), verdictTurn("block", "no"))
		e.anthropic(srv).run("-p", "--permission-mode", "auto", "--", "make files")
		e.wantCode(1)
		if !strings.Contains(e.stderr, "too many classifier denials") {
			t.Errorf("stderr %q", e.stderr)
		}
		if judge, main := classifierRequests(srv); len(judge) != 3 || len(main) != 3 {
			t.Errorf("%d classifier and %d agent requests, want 3 and 3", len(judge), len(main))
		}
	})

	t.Run("permissions check calls the model and says so", func(t *testing.T) {
		e := newE2E(t, bin)
		srv := llmtest.NewAnthropicServer(t).Side(classifierMatch, verdictTurn("allow", "creates a file"))
		e.anthropic(srv).run("permissions", "check", "--permission-mode", "auto", "--tool", "Bash", "--input", `{"command":"ln -s x y"}`)
		e.wantCode(0)
		if !strings.Contains(e.stdout, "claude-haiku-4-5 (anthropic), which this check calls") || !strings.Contains(e.stdout, "creates a file") {
			t.Errorf("stdout:\n%s", e.stdout)
		}

		e = newE2E(t, bin)
		e.run("permissions", "check", "--permission-mode", "auto", "--tool", "Bash", "--input", `{"command":"ln -s x y"}`)
		e.wantCode(4)
		if !strings.Contains(e.stdout, "could not call the model") || !strings.Contains(e.stdout, "no auto-mode classifier is configured") {
			t.Errorf("stdout:\n%s", e.stdout)
		}
	})
}
