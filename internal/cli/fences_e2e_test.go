package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm/llmtest"
	"github.com/reinsdev/reins/settings"
)

// --restricted: the model is offered none of the tools that run code or reach the web, the
// user's settings (their hooks and allow rules) are not read, and bypassPermissions is refused.
func TestRestrictedE2E(t *testing.T) {
	bin := reinsBinary(t)
	srv := llmtest.NewAnthropicServer(t, llmtest.UseTools(llmtest.Call("Read", `{"file_path":"notes.txt"}`)), llmtest.Say("done"))
	e := newE2E(t, bin).anthropic(srv)
	e.write("notes.txt", "hello\n")
	hookLog := filepath.Join(e.home, "hook.log")
	e.userSettings(`{"permissions": {"allow": ["Bash"]}, "hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "echo ran >> ` + hookLog + `"}]}]}}`)
	e.run("-p", "--restricted", "read the notes")
	e.wantCode(0)
	tools := requestTools(t, srv.Requests()[0])
	for _, name := range settings.RestrictedTools {
		if slices.Contains(tools, name) {
			t.Errorf("--restricted offered %s: %v", name, tools)
		}
	}
	if !slices.Contains(tools, "Read") {
		t.Errorf("--restricted took Read away: %v", tools)
	}
	if _, err := os.Stat(hookLog); err == nil {
		t.Error("the user's hook ran under --restricted")
	}
	if rs := toolResults(t, srv.Requests()[1]); len(rs) != 1 || rs[0].IsError {
		t.Errorf("Read under --restricted: %+v", rs)
	}
	e.run("-p", "--restricted", "--dangerously-skip-permissions", "x")
	if e.code == 0 || !strings.Contains(e.stderr, "--restricted refuses bypassPermissions") {
		t.Errorf("--restricted with bypass: exit %d, %s", e.code, e.stderr)
	}
}

// blockWritesOutsideWorkingDirectories from a settings file denies a write outside the
// working directories even in acceptEdits, naming the setting and its file:line:col; a write
// inside still runs.
func TestWriteFenceE2E(t *testing.T) {
	bin := reinsBinary(t)
	root := t.TempDir()
	outside := filepath.Join(root, "outside.txt")
	srv := llmtest.NewAnthropicServer(t,
		llmtest.UseTools(
			llmtest.Call("Write", fmt.Sprintf(`{"file_path":%q,"content":"x"}`, outside)),
			llmtest.Call("Write", `{"file_path":"inside.txt","content":"y"}`)),
		llmtest.Say("done"))
	e := newE2E(t, bin).anthropic(srv)
	e.userSettings("{\n  \"permissions\": {\"blockWritesOutsideWorkingDirectories\": true}\n}")
	e.run("-p", "--permission-mode", "acceptEdits", "write")
	e.wantCode(0)
	rs := toolResults(t, srv.Requests()[1])
	if len(rs) != 2 || !rs[0].IsError || !strings.Contains(rs[0].Content[0].Text, "blockWritesOutsideWorkingDirectories ("+filepath.Join(e.home, ".reins", "settings.json")+":2:59)") {
		t.Errorf("the write outside: %+v", rs)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Error("the write outside the working directories ran")
	}
	if _, err := os.Stat(filepath.Join(e.dir, "inside.txt")); err != nil {
		t.Errorf("the write inside did not run: %v", err)
	}
	e.userSettings(`{"permissions": {"blockWritesOutsideWorkingDirectories": "yes"}}`)
	e.run("-p", "x")
	if e.code == 0 || !strings.Contains(e.stderr, ":1:58: permissions.blockWritesOutsideWorkingDirectories must be true or false") {
		t.Errorf("a fence of the wrong type: exit %d, %s", e.code, e.stderr)
	}
}
