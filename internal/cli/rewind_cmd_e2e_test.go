package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm/llmtest"
)

// TestRewindCommandE2E: a stream-json session with checkpoints (as the SDK starts it) removes
// src; reins rewind lists its checkpoint, a dry run changes nothing, and --to 1 puts src back;
// --conversation is refused with where to do it.
func TestRewindCommandE2E(t *testing.T) {
	bin := reinsBinary(t)
	e := newE2E(t, bin)
	os.MkdirAll(filepath.Join(e.dir, "src"), 0o755)
	e.write("src/main.go", "package main\n")
	e.write("src/.env", "TOKEN=1\n")
	srv := llmtest.NewAnthropicServer(t,
		llmtest.UseTools(llmtest.Call("Bash", `{"command":"rm -rf src"}`)),
		llmtest.Say("Removed."))
	e.anthropic(srv)
	e.env = append(e.env, "CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING=true")
	e.stdin = `{"type":"user","message":{"role":"user","content":"remove src"},"parent_tool_use_id":null,"session_id":"","uuid":"0b6f6c3e-1a2b-4c3d-8e9f-001122334455"}` + "\n"
	e.run("--input-format", "stream-json", "--output-format", "stream-json", "--allowedTools", "Bash(rm -rf src)").wantCode(0)
	if _, err := os.Stat(filepath.Join(e.dir, "src")); err == nil {
		t.Fatalf("src was not removed:\n%s\n%s", e.stdout, e.stderr)
	}

	e.stdin = ""
	e.run("rewind").wantCode(0)
	if !strings.Contains(e.stdout, `1  0b6f6c3e-1a2b-4c3d-8e9f-001122334455  "remove src"  2 file(s) changed since`) {
		t.Errorf("the list:\n%s", e.stdout)
	}
	e.run("rewind", "--to", "1", "--dry-run").wantCode(0)
	if _, err := os.Stat(filepath.Join(e.dir, "src")); err == nil || !strings.Contains(e.stdout, "Dry run") || !strings.Contains(e.stdout, "Put back 2 file(s)") {
		t.Errorf("the dry run (src there: %v):\n%s", err == nil, e.stdout)
	}
	e.run("rewind", "--to", "1", "--conversation").wantCode(2)
	e.run("rewind", "--to", "1").wantCode(0)
	for p, want := range map[string]string{"src/main.go": "package main\n", "src/.env": "TOKEN=1\n"} {
		if got, err := os.ReadFile(filepath.Join(e.dir, p)); err != nil || string(got) != want {
			t.Errorf("%s = %q (%v)", p, got, err)
		}
	}
	e.run("rewind", "--to", "7").wantCode(2)
}
