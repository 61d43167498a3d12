package tui

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// withPrompts gives the harness two MCP prompts; run records how each was called.
func withPrompts(h *harness, run func(ctx context.Context, name, args string) (string, error)) {
	h.m.cfg.Prompts = []PromptCommand{
		{Name: "mcp__github__review_pr", Description: "Review a pull request", Args: []string{"NUMBER", "[FOCUS]"}},
		{Name: "mcp__docs__summarise", Description: "Summarise the docs"},
	}
	h.m.cfg.RunPrompt = run
}

func TestMCPPromptCommands(t *testing.T) {
	t.Run("help lists them", func(t *testing.T) {
		h := newHarness(t, 100, 30)
		withPrompts(h, nil)
		h.typeText("/help")
		h.press("enter")
		h.golden("help-mcp-prompts")
	})
	t.Run("the prompt's text is the person's turn", func(t *testing.T) {
		h := newHarness(t, 80, 24)
		var gotName, gotArgs string
		withPrompts(h, func(_ context.Context, name, args string) (string, error) {
			gotName, gotArgs = name, args
			return "Review pull request 42, focusing on error handling.", nil
		})
		h.typeText("/mcp__github__review_pr 42  error handling")
		_, cmd := h.m.Update(keyMsg("enter"))
		if cmd == nil {
			t.Fatal("the command did not run the prompt")
		}
		msg := cmd() // as Bubble Tea would, off the UI's goroutine
		if gotName != "mcp__github__review_pr" || gotArgs != "42  error handling" {
			t.Errorf("RunPrompt(%q, %q)", gotName, gotArgs)
		}
		pm, ok := msg.(promptMsg)
		if !ok {
			t.Fatalf("the command returned %T", msg)
		}
		// Queued while a turn runs, so that the agent is not started by the test.
		h.m.running = true
		h.send(pm)
		if len(h.m.queued) != 1 || h.m.queued[0] != "Review pull request 42, focusing on error handling." {
			t.Errorf("queued = %q", h.m.queued)
		}
	})
	t.Run("errors and unknown prompts", func(t *testing.T) {
		h := newHarness(t, 80, 24)
		withPrompts(h, func(context.Context, string, string) (string, error) {
			return "", errors.New("/mcp__github__review_pr needs the argument number")
		})
		h.typeText("/mcp__nope__x")
		h.press("enter")
		h.m.input.SetValue("/mcp__github__review_pr")
		_, cmd := h.m.Update(keyMsg("enter"))
		h.send(cmd())
		s := h.screen()
		for _, want := range []string{"unknown command /mcp__nope__x", "needs the argument number"} {
			if !strings.Contains(s, want) {
				t.Errorf("the screen does not show %q:\n%s", want, s)
			}
		}
	})
}
