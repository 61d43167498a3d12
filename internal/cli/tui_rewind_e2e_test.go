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
	files := map[string]string{
		"a.go":            "package a\n\nfunc A() int { return 1 }\n",
		"src/main.go":     "package main\n\nfunc main() {}\n",
		"src/lib/util.go": "package lib\n",
		"src/.env":        "API_TOKEN=do-not-lose-me\n",
		".gitignore":      ".env\n",
	}
	for p, c := range files {
		os.MkdirAll(filepath.Join(e.dir, filepath.Dir(p)), 0o755)
		e.write(p, c)
	}
	a := filepath.Join(e.dir, "a.go")
	srv := llmtest.NewAnthropicServer(t,
		llmtest.UseTools(llmtest.Call("Read", `{"file_path":"`+a+`"}`)),
		llmtest.UseTools(llmtest.Call("Edit", `{"file_path":"`+a+`","old_string":"return 1","new_string":"return 2 // changed"}`)),
		llmtest.UseTools(llmtest.Call("Bash", `{"command":"rm -rf src","description":"Remove src"}`)),
		llmtest.Say("Done changing."))
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
	r.waitFor("Rewind to before a message", "change a.go and remove src", "4 file(s) changed since")
	r.keys("Enter")
	r.waitFor("code and conversation")
	r.keys("1")
	s := r.waitFor("Put back 4 file(s)", "Conversation rewound", "> change a.go and remove src")
	if strings.Contains(s, "Done changing.") {
		t.Errorf("the conversation after the message is still shown:\n%s", s)
	}
	for p, want := range files {
		got, err := os.ReadFile(filepath.Join(e.dir, p))
		if err != nil || string(got) != want {
			t.Errorf("%s = %q (%v), want %q", p, got, err, want)
		}
	}
	r.keys("C-c") // empties the input
	r.quit()
}
