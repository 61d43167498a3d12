package cli

import (
	"regexp"
	"strings"
	"testing"
	"time"

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

// Ctrl+C stops a running turn and the chat goes on; only Ctrl+C twice from an empty prompt
// quits.
func TestChatCtrlCInterruptsE2E(t *testing.T) {
	bin := reinsBinary(t)
	e := newE2E(t, bin)
	marker := "30.375"
	srv := llmtest.NewAnthropicServer(t, llmtest.UseTools(llmtest.Call("Bash", `{"command":"sleep `+marker+`"}`)), llmtest.Say("Still here."))
	e.anthropic(srv)
	r := startTUI(t, e, "--allowedTools", "Bash(sleep:*)")
	r.waitFor("default mode")
	r.typeText("wait")
	r.keys("Enter")
	waitForProc(t, 15*time.Second, r.screen, "sleep", marker)
	r.keys("C-c")
	s := r.waitFor("Interrupted. The conversation is saved")
	if strings.Contains(s, "Press Ctrl+C again") {
		t.Errorf("Ctrl+C during a turn armed the quit:\n%s", s)
	}
	if procs := findProcs("sleep", marker); len(procs) > 0 {
		t.Errorf("child processes left behind: %v", procs)
	}
	r.typeText("go on")
	r.keys("Enter")
	r.waitFor("Still here.")
	r.quit()
}

// /exit and /quit leave the conversation in the terminal with the command that resumes it,
// and that command resumes it.
func TestChatExitKeepsTheConversationE2E(t *testing.T) {
	bin := reinsBinary(t)
	for _, cmd := range []string{"/exit", "/quit"} {
		t.Run(cmd, func(t *testing.T) {
			e := newE2E(t, bin)
			e.anthropic(llmtest.NewAnthropicServer(t, llmtest.Say("Hello there.")))
			r := startToExit(t, e)
			r.waitFor("default mode")
			r.typeText("hi")
			r.keys("Enter")
			r.waitFor("Hello there.")
			r.typeText(cmd)
			r.keys("Enter")
			r.waitFor("[reins exited 0]")
			// The whole pane with its history: what the person can scroll back to.
			s := r.tmux("capture-pane", "-p", "-S", "-", "-t", "main")
			m := regexp.MustCompile(`reins --resume (\S+)`).FindStringSubmatch(s)
			if m == nil || !strings.Contains(s, "> hi") || !strings.Contains(s, "Hello there.") {
				t.Fatalf("the conversation and the resume command are not left on screen:\n%s", s)
			}
			r2 := startTUI(t, e, "--resume", m[1])
			r2.waitFor("Resumed session "+m[1], "> hi", "Hello there.")
			r2.quit()
		})
	}
}

// The start banner names the model, the folder, the mode and the trust; a card whose dialog
// is open waits, it does not run; an Agent card shows no agentId.
func TestChatScreensE2E(t *testing.T) {
	bin := reinsBinary(t)
	t.Run("banner and waiting card", func(t *testing.T) {
		e := newE2E(t, bin)
		e.anthropic(llmtest.NewAnthropicServer(t, llmtest.UseTools(llmtest.Call("Bash", `{"command":"touch made.txt"}`)), llmtest.Say("All done.")))
		r := startTUI(t, e, "--model", "claude-sonnet-4-5")
		r.waitFor("✻ Reins", "model   claude-sonnet-4-5", "folder  "+e.dir, "mode    default", "trust   ")
		r.typeText("make a file")
		r.keys("Enter")
		s := r.waitFor("Do you want to proceed?", "Bash(touch made.txt) waiting for your answer")
		if strings.Contains(s, "running") {
			t.Errorf("a card says running while its dialog waits:\n%s", s)
		}
		r.keys("1")
		r.waitFor("All done.")
		r.quit()
	})
	t.Run("agent card", func(t *testing.T) {
		e := newE2E(t, bin)
		e.anthropic(exploreTODO(t, e))
		r := startTUI(t, e)
		r.waitFor("default mode")
		r.typeText("where is the TODO?")
		r.keys("Enter")
		s := r.waitFor("Found it: main.go.", "Agent(Explore · find the TODO)")
		if strings.Contains(s, "agentId") || strings.Contains(s, "<usage>") {
			t.Errorf("the Agent card shows the model's bookkeeping:\n%s", s)
		}
		r.quit()
	})
}
