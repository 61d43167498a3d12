package tui

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/google/go-cmp/cmp"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/llmtest"
)

// waitForCancel is a model request that answers only when the turn is aborted.
func waitForCancel(ctx context.Context, _ *llm.Request) (*llm.Response, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// Ctrl+C during a turn interrupts it, whether the model is answering or a dialog waits; only
// an idle chat with an empty prompt quits, on the second press.
func TestCtrlCInterruptsARunningTurn(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer llmtest.Answer
		ready  func(m *Model) bool
	}{
		{"while the model answers", waitForCancel, func(m *Model) bool { return m.running }},
		{"while a dialog waits", useTools(llm.ToolUse("t1", "Bash", []byte(`{"command":"touch x"}`))), func(m *Model) bool { return len(m.asks) > 0 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, 80, 24)
			d := newDriver(h, tc.answer, say("Next reply."))
			d.send("go")
			d.until("the turn", func() bool { return tc.ready(h.m) })
			d.key("ctrl+c")
			if h.m.ctrlC {
				t.Errorf("Ctrl+C during a turn armed the quit")
			}
			d.until("the end of the turn", d.idle)
			if len(d.done) != 1 || !errors.Is(d.done[0].err, context.Canceled) {
				t.Fatalf("turns ended: %+v, want one interrupted", d.done)
			}
			if len(h.m.asks) != 0 {
				t.Errorf("the dialog of the interrupted turn is still open")
			}
			if !strings.Contains(h.screen(), "Interrupted. The conversation is saved") {
				t.Errorf("the interruption is not told:\n%s", h.screen())
			}
			if _, cmd := h.m.Update(keyMsg("ctrl+c")); cmd != nil || !h.m.ctrlC {
				t.Fatalf("the first Ctrl+C when idle should only arm the quit")
			}
			_, cmd := h.m.Update(keyMsg("ctrl+c"))
			if cmd == nil {
				t.Fatal("the second Ctrl+C when idle did not quit")
			}
			if _, ok := cmd().(tea.QuitMsg); !ok {
				t.Errorf("the second Ctrl+C returned %T, want tea.QuitMsg", cmd())
			}
		})
	}
}

// /exit and /quit leave the chat, and the conversation is left in the terminal with the
// command that resumes it.
func TestExitLeavesTheConversation(t *testing.T) {
	for _, cmd := range []string{"/exit", "/quit"} {
		t.Run(cmd, func(t *testing.T) {
			h := newHarness(t, 80, 24)
			d := newDriver(h, say("Hello! What shall we build?"))
			d.send("hi")
			d.until("the reply", func() bool { return len(d.done) == 1 })
			h.typeText(cmd)
			_, quit := h.m.Update(keyMsg("enter"))
			if quit == nil {
				t.Fatalf("%s did not quit", cmd)
			}
			if _, ok := quit().(tea.QuitMsg); !ok {
				t.Fatalf("%s returned %T, want tea.QuitMsg", cmd, quit())
			}
			if !h.m.quitting {
				t.Errorf("%s is not a quit that leaves the conversation", cmd)
			}
			var b strings.Builder
			if err := h.m.leaveScrollback(&b); err != nil {
				t.Fatal(err)
			}
			goldenText(t, "exit-scrollback", b.String())
		})
	}
}

// goldenText compares text with testdata/screens/name.golden (-update rewrites it).
func goldenText(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "screens", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", name, diff)
	}
}
