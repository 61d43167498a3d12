package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm/llmtest"
)

// TestInteractiveNothingOnStderr: while the chat draws, nothing reaches the terminal behind it.
// reins runs with its standard error sent to a file, and within one chat the model API is
// overloaded once (a retry), a hook fails writing to its standard error, an MCP server writes to
// its standard error and fails, and --debug logs every step: the file stays empty, and the
// retry and the server's failure are notices on the screen.
func TestInteractiveNothingOnStderr(t *testing.T) {
	server := goMCPServer(t)
	e := newE2E(t, reinsBinary(t))
	srv := llmtest.NewAnthropicServer(t, llmtest.Overloaded(), llmtest.Say("hello after the retry"))
	e.anthropic(srv)
	userSettings := filepath.Join(e.home, ".reins", "settings.json")
	if err := os.MkdirAll(filepath.Dir(userSettings), 0o755); err != nil {
		t.Fatal(err)
	}
	hook := `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo hook-noise >&2; exit 1"}]}]}}`
	if err := os.WriteFile(userSettings, []byte(hook), 0o644); err != nil {
		t.Fatal(err)
	}
	mcpConfig := fmt.Sprintf(`{"mcpServers": {"noisy": {"command": %q, "env": {"REINS_TEST_MCP_SERVER": "fail-start"}}}}`, server)
	// The binary is started through a script that sends its standard error to a file.
	errFile := filepath.Join(t.TempDir(), "stderr")
	wrapper := filepath.Join(t.TempDir(), "reins-2to-file")
	script := "#!/bin/sh\nexec " + shellQuote(e.bin) + ` "$@" 2>` + shellQuote(errFile) + "\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	e.bin = wrapper

	r := startTUI(t, e, "--debug", "--mcp-config", mcpConfig)
	r.waitFor("default mode", "MCP server noisy failed", "fatal: GITHUB_TOKEN is not set")
	r.typeText("hi")
	r.keys("Enter")
	r.waitFor("hello after the retry", "retrying in")
	data, err := os.ReadFile(errFile)
	if err != nil {
		t.Fatal(err)
	}
	// The debug log's first line is written before the chat starts, on a terminal still free.
	lines := strings.SplitAfter(string(data), "\n")
	if len(lines) > 0 && strings.Contains(lines[0], "msg=start command=reins") {
		data = []byte(strings.Join(lines[1:], ""))
	}
	if len(data) != 0 {
		t.Errorf("reins wrote to standard error while the chat was drawn:\n%s", data)
	}
	if srv.Served() < 2 {
		t.Errorf("the overloaded request was not retried: %d requests", srv.Served())
	}
	if !strings.Contains(r.screen(), "the debug log goes to") {
		t.Errorf("the chat does not say where the debug log went:\n%s", r.screen())
	}
	r.quit()
}
