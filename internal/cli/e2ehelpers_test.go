package cli

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"testing"

	"github.com/reinsdev/reins/llm/llmtest"
)

// startSleeping starts `reins -p` (with args before the prompt) whose model calls Bash
// `sleep <marker>`, so the run is mid-turn until the test ends it; out reads what it printed so
// far. The process is killed when the test ends.
func startSleeping(t *testing.T, e *e2e, marker string, args ...string) (cmd *exec.Cmd, out func() string) {
	t.Helper()
	srv := llmtest.NewAnthropicServer(t, llmtest.UseTools(llmtest.Call("Bash", `{"command":"sleep `+marker+`"}`)))
	e.anthropic(srv)
	cmd = exec.Command(e.bin, append(append([]string{"-p", "--allowedTools", "Bash"}, args...), "--", "run it")...)
	cmd.Dir, cmd.Env = e.dir, e.env
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	return cmd, buf.String
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
