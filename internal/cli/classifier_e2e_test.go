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

}
