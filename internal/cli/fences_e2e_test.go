package cli

import (
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
