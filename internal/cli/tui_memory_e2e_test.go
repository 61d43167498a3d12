package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm/llmtest"
)

// TestMemoryChatE2E: in the chat, /memory lists the memory files with their sources and what
// was left out, /memory N opens one in $EDITOR (a script that appends a line) and the chat comes
// back; /init sends the model the request to write CLAUDE.md.
func TestMemoryChatE2E(t *testing.T) {
	bin := reinsBinary(t)
	e := newE2E(t, bin)
	if err := os.MkdirAll(filepath.Join(e.dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.write("CLAUDE.md", "Use tabs. @AGENTS.md @gone.md\n")
	e.write("AGENTS.md", "Run the tests.\n")
	editor := filepath.Join(t.TempDir(), "editor.sh")
	if err := os.WriteFile(editor, []byte("#!/bin/sh\necho 'added by the editor' >> \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewAnthropicServer(t, llmtest.Say("I wrote CLAUDE.md."))
	e.anthropic(srv)
	e.env = append(e.env, "EDITOR="+editor)
	r := startTUI(t, e)
	// The trust dialog lists the memory files; No keeps them untrusted.
	r.waitFor("Do you trust the files in this folder?", "CLAUDE.md")
	r.keys("2")
	// The chat starts by saying the project's memory is untrusted.
	r.waitFor("default mode", "This project is not trusted: its CLAUDE.md and AGENTS.md")

	r.typeText("/memory")
	r.keys("Enter")
	r.waitFor("1. CLAUDE.md (project, untrusted)", "2. AGENTS.md (project, imported by", "Left out:", "gone.md: no such file")

	r.typeText("/memory 1")
	r.keys("Enter")
	r.waitFor("Edited CLAUDE.md.")
	data, err := os.ReadFile(filepath.Join(e.dir, "CLAUDE.md"))
	if err != nil || !strings.HasSuffix(string(data), "added by the editor\n") {
		t.Fatalf("the editor did not run on CLAUDE.md: %v %q", err, data)
	}

	r.typeText("/init")
	r.keys("Enter")
	r.waitFor("I wrote CLAUDE.md.")
	reqs := srv.Requests()
	_, msgs := requestText(t, reqs[len(reqs)-1])
	if !strings.Contains(msgs, "create a CLAUDE.md file in the working directory") {
		t.Errorf("/init did not ask for CLAUDE.md:\n%s", msgs)
	}
	r.quit()
}
