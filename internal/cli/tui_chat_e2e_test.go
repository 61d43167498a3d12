package cli

import (
	"strings"
	"testing"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm/llmtest"
)

// A plain No in the permission dialog, by any key, denies the call and ends the turn: the
// model is not asked again until the person writes. "No, and tell Reins what to do" goes on.
func TestChatNoStopsTheTurnE2E(t *testing.T) {
	bin := reinsBinary(t)
	touch := llmtest.UseTools(llmtest.Call("Bash", `{"command":"touch made.txt","description":"Create the file"}`))
	for _, tc := range []struct {
		name string
		keys []string
	}{
		{"number key", []string{"6"}},
		{"esc", []string{"Escape"}},
		{"arrows and enter", []string{"Up", "Up", "Enter"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newE2E(t, bin)
			srv := llmtest.NewAnthropicServer(t, touch, llmtest.Say("Next reply."))
			e.anthropic(srv)
			r := startTUI(t, e)
			r.waitFor("default mode")
			r.typeText("make a file")
			r.keys("Enter")
			r.waitFor("Do you want to proceed?", "6. No")
			r.keys(tc.keys...)
			r.waitFor("Stopped: you said no.")
			if n := srv.Served(); n != 1 {
				t.Fatalf("the model was asked %d times, want once: a No ends the turn", n)
			}
			r.typeText("hello")
			r.keys("Enter")
			s := r.waitFor("Next reply.")
			if n := strings.Count(s, "Next reply."); n != 1 {
				t.Errorf("the reply is shown %d times:\n%s", n, s)
			}
			res, err := srv.Requests()[1].ToolResults()
			if err != nil || len(res) != 1 || !res[0].IsError || !strings.Contains(blockText(res[0]), agent.RejectMessage) {
				t.Errorf("the denied call's result is not the rejection: %v %+v", err, res)
			}
			r.quit()
		})
	}

	t.Run("no with feedback goes on", func(t *testing.T) {
		e := newE2E(t, bin)
		srv := llmtest.NewAnthropicServer(t, touch, llmtest.Say("Using a.txt then."))
		e.anthropic(srv)
		r := startTUI(t, e)
		r.waitFor("default mode")
		r.typeText("make a file")
		r.keys("Enter")
		r.waitFor("Do you want to proceed?", "7. No, and tell Reins")
		r.keys("7")
		r.waitFor("Tell Reins what to do instead")
		r.typeText("call it a.txt")
		r.keys("Enter")
		s := r.waitFor("Using a.txt then.")
		if n := strings.Count(s, "Using a.txt then."); n != 1 {
			t.Errorf("the reply is shown %d times:\n%s", n, s)
		}
		if strings.Contains(s, "Stopped: you said no") {
			t.Errorf("a No with feedback stopped the turn:\n%s", s)
		}
		res, err := srv.Requests()[1].ToolResults()
		if err != nil || len(res) != 1 || !strings.Contains(blockText(res[0]), "call it a.txt") {
			t.Errorf("the feedback did not reach the model: %v %+v", err, res)
		}
		r.quit()
	})
}
