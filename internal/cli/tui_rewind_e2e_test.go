package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinsdev/reins/llm/llmtest"
)

// TestChatRewindE2E: in the chat, a turn edits a.go and runs rm -rf src (tracked files and a
// git-ignored .env); /rewind, the message, then "code and conversation" puts every file back
// byte for byte and leaves the message in the input.
func TestChatRewindE2E(t *testing.T) {
	bin := reinsBinary(t)
	e := newE2E(t, bin)
	files := rewindProject(e)
	srv := llmtest.NewAnthropicServer(t, rewindTurns(e, "Done changing.")...)
	e.anthropic(srv)
	r := startTUI(t, e, "--allowedTools", "Read", "Edit", "Bash(rm -rf src)")
	r.waitFor("default mode")
	r.typeText("change a.go and remove src")
	r.keys("Enter")
	deadline := time.Now().Add(20 * time.Second)
	for s := r.screen(); !strings.Contains(s, "Done changing."); s = r.screen() {
		if strings.Contains(s, "Do you want to proceed?") {
			r.keys("1")
		}
		if time.Now().After(deadline) {
			t.Fatalf("the turn did not end:\n%s", s)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "src")); err == nil {
		t.Fatal("src was not removed: nothing to rewind")
	}
	r.typeText("/rewind")
	r.keys("Enter")
	r.waitFor("Rewind to before a message", "change a.go and remove src", "4 files changed since")
	r.keys("Enter")
	r.waitFor("code and conversation")
	r.keys("1")
	s := r.waitFor("Put back 4 files", "Conversation rewound", "> change a.go and remove src")
	if strings.Contains(s, "Done changing.") {
		t.Errorf("the conversation after the message is still shown:\n%s", s)
	}
	wantFiles(t, e.dir, files)
	r.keys("C-c") // empties the input
	r.quit()
}
