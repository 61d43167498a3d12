package cli

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/reinsdev/reins/llm/llmtest"
)

// The settings' status command in the real chat: its line shows under the input and follows a
// mode change (shift+tab); a command that hangs or floods its output changes nothing else — the
// chat answers, the line is cut to the width, and nothing of it is left running.
func TestStatusLineE2E(t *testing.T) {
	bin := reinsBinary(t)
	t.Run("follows the mode", func(t *testing.T) {
		e := newE2E(t, bin).anthropic(llmtest.NewAnthropicServer(t, llmtest.Say("hi")))
		sl := e.hookScript("status.sh", `read -r json
mode=$(printf '%s' "$json" | sed -n 's/.*"permission_mode":"\([^"]*\)".*/\1/p')
sid=$(printf '%s' "$json" | sed -n 's/.*"session_id":"\([^"]*\)".*/\1/p')
echo "SL[$mode] ${#sid}"
echo "second line"`)
		e.userSettings(fmt.Sprintf(`{"statusLine": {"type": "command", "command": %q, "padding": 1}}`, sl))
		r := startTUI(t, e)
		s := r.waitFor("default mode", " SL[default] 36")
		if strings.Contains(s, "second line") {
			t.Errorf("more than the first line is shown:\n%s", s)
		}
		r.keys("BTab")
		r.waitFor("accept edits on", "SL[acceptEdits]")
		r.quit()
	})
	for _, tt := range []struct{ name, command string }{
		{"a command that hangs", "sleep 707.25"},
		{"a command that prints 1 MB", `head -c 1048576 /dev/zero | tr '\0' y; echo`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewAnthropicServer(t, llmtest.Say("still answering"))
			e := newE2E(t, bin).anthropic(srv)
			e.userSettings(fmt.Sprintf(`{"statusLine": {"type": "command", "command": %q}}`, tt.command))
			r := startTUI(t, e)
			r.waitFor("default mode")
			start := time.Now()
			r.typeText("hello")
			r.keys("Enter")
			s := r.waitFor("still answering")
			if d := time.Since(start); d > 4*time.Second {
				t.Errorf("the chat took %v to answer beside the status command", d)
			}
			for _, line := range strings.Split(s, "\n") {
				if len([]rune(line)) > 100 {
					t.Errorf("a line wider than the terminal: %d", len([]rune(line)))
				}
			}
			if strings.Contains(tt.command, "head") {
				r.waitFor("yyyyyyyyyy…")
			}
			r.quit()
			if procs := findProcs("sleep", "707.25"); len(procs) > 0 {
				t.Errorf("the status command is still running: %v", procs)
			}
		})
	}
}
