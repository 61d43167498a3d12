package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinsdev/reins/llm/llmtest"
)

// TestInteractiveTrustDialog: in an untrusted project whose shared settings allow a command,
// the chat first shows what trusting the folder would enable (the rules with file:line, the
// local file's too, the hook with its command, the memory file). No keeps the session running untrusted: the rule is
// ignored and the call asks. Yes records the trust as `reins trust` does and the rule applies
// at once: the call runs without asking. A trusted folder is not asked about again.
func TestInteractiveTrustDialog(t *testing.T) {
	bin := reinsBinary(t)
	project := func(t *testing.T) (*e2e, *llmtest.Server) {
		e := newE2E(t, bin)
		if err := os.MkdirAll(filepath.Join(e.dir, ".claude"), 0o755); err != nil {
			t.Fatal(err)
		}
		e.write(".claude/settings.json", `{
  "permissions": {
    "allow": ["Bash(touch made.txt)"]
  },
  "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "echo team-hook"}]}]}
}`)
		// A committed local file waits for trust as the shared one does.
		e.write(".claude/settings.local.json", `{"permissions": {"allow": ["Bash(echo hi)"]}}`)
		e.write("CLAUDE.md", "Use tabs.\n")
		srv := llmtest.NewAnthropicServer(t,
			llmtest.UseTools(llmtest.Call("Bash", `{"command":"touch made.txt","description":"Create the file"}`)),
			llmtest.Say("Done."))
		e.anthropic(srv)
		return e, srv
	}
	trusted := func(e *e2e) bool {
		data, err := os.ReadFile(filepath.Join(e.home, ".reins", "trusted-projects.json"))
		return err == nil && strings.Contains(string(data), e.dir)
	}

	t.Run("no keeps the folder untrusted and the rule ignored", func(t *testing.T) {
		e, _ := project(t)
		r := startTUI(t, e)
		r.waitFor("Do you trust the files in this folder?", "Bash(touch made.txt)  .claude/settings.json:3:15",
			"Bash(echo hi)  .claude/settings.local.json:1:28", "SessionStart: echo team-hook", "CLAUDE.md")
		r.keys("2")
		r.waitFor("default mode")
		r.typeText("make a file")
		r.keys("Enter")
		r.waitFor("Do you want to proceed?", "touch made.txt")
		r.keys("6")
		deadline := time.Now().Add(20 * time.Second)
		for strings.Contains(r.screen(), "Do you want to proceed?") {
			if time.Now().After(deadline) {
				t.Fatalf("the dialog stayed after No:\n%s", r.screen())
			}
			time.Sleep(50 * time.Millisecond)
		}
		r.quit()
		if trusted(e) {
			t.Error("No recorded the folder as trusted")
		}
	})

	t.Run("yes applies the rule at once and is remembered", func(t *testing.T) {
		e, _ := project(t)
		r := startTUI(t, e)
		r.waitFor("Do you trust the files in this folder?")
		r.keys("1")
		r.waitFor("default mode")
		r.typeText("make a file")
		r.keys("Enter")
		s := r.waitFor("Done.")
		if strings.Contains(s, "Do you want to proceed?") {
			t.Errorf("the trusted project's allow rule did not apply:\n%s", s)
		}
		if _, err := os.Stat(filepath.Join(e.dir, "made.txt")); err != nil {
			t.Errorf("the command did not run: %v", err)
		}
		r.quit()
		if !trusted(e) {
			t.Fatal("Yes did not record the trust")
		}
		r2 := startTUI(t, e)
		s = r2.waitFor("default mode")
		if strings.Contains(s, "Do you trust") {
			t.Errorf("a trusted folder was asked about again:\n%s", s)
		}
		r2.quit()
	})
}
