package tui

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

func withCommands(h *harness, run func(ctx context.Context, name, args string) (string, func(), error)) {
	h.m.cfg.Commands = []CustomCommand{
		{Name: "review", Description: "Review a branch", ArgumentHint: "<branch>", Source: "project", Ignored: "allowed-tools of review.md ignored: the project is not trusted (run reins trust)"},
		{Name: "frontend:lint", Description: "Lint the frontend", Source: "user"},
		{Name: "frontend:test", Description: "Test the frontend", Source: "user"},
	}
	h.m.cfg.RunCommand = run
}

func TestCustomCommandsInTheChat(t *testing.T) {
	t.Run("help lists them with hint, description, source and ignored rules", func(t *testing.T) {
		h := newHarness(t, 120, 40)
		withCommands(h, nil)
		h.typeText("/help")
		h.press("enter")
		s := h.screen()
		for _, want := range []string{"Custom commands", "/review <branch>", "Review a branch (project)", "/frontend:lint", "Lint the frontend (user)", "ignored: the project is not trusted"} {
			if !strings.Contains(s, want) {
				t.Errorf("/help lacks %q:\n%s", want, s)
			}
		}
	})
	t.Run("tab completes a name and lists candidates", func(t *testing.T) {
		h := newHarness(t, 80, 24)
		withCommands(h, nil)
		tests := []struct {
			in, want string
			cands    []string
		}{
			{"/rev", "/review ", nil},
			{"/fr", "/frontend:", []string{"/frontend:lint", "/frontend:test"}},
			{"/c", "/c", []string{"/clear", "/compact", "/context", "/cost"}},
			{"/review x", "/review x", nil},
		}
		for _, tt := range tests {
			h.m.input.SetValue(tt.in)
			h.press("tab")
			if got := h.m.input.Value(); got != tt.want || !slices.Equal(h.m.input.completions, tt.cands) {
				t.Errorf("%q: completed to %q with %q; want %q with %q", tt.in, got, h.m.input.completions, tt.want, tt.cands)
			}
		}
	})
	t.Run("running one expands it off the UI goroutine and ends it with its turn", func(t *testing.T) {
		h := newHarness(t, 80, 24)
		var gotName, gotArgs string
		ended := 0
		withCommands(h, func(_ context.Context, name, args string) (string, func(), error) {
			gotName, gotArgs = name, args
			return "Review the branch main.", func() { ended++ }, nil
		})
		h.typeText("/review  main")
		_, cmd := h.m.Update(keyMsg("enter"))
		if cmd == nil {
			t.Fatal("the command did not run")
		}
		msg := cmd()
		if gotName != "review" || gotArgs != "main" {
			t.Errorf("RunCommand(%q, %q)", gotName, gotArgs)
		}
		cm, ok := msg.(commandMsg)
		if !ok || cm.text != "Review the branch main." {
			t.Fatalf("the command returned %#v", msg)
		}
		if !h.m.running {
			t.Error("another turn could start while the command expands")
		}
		h.m.turnEnd = cm.end // as commandReady sets it, without starting the agent
		h.m.turnDone(turnDoneMsg{})
		if ended != 1 || h.m.turnEnd != nil {
			t.Errorf("the command's end ran %d times at the turn's end", ended)
		}
	})
	t.Run("esc stops a command being expanded", func(t *testing.T) {
		h := newHarness(t, 80, 24)
		withCommands(h, func(ctx context.Context, _, _ string) (string, func(), error) {
			<-ctx.Done() // a !`cmd` line that runs until it is stopped
			return "", nil, ctx.Err()
		})
		h.typeText("/review")
		_, cmd := h.m.Update(keyMsg("enter"))
		h.press("esc")
		h.send(cmd())
		if h.m.running {
			t.Error("the chat still runs after the stopped command")
		}
	})
	t.Run("a stopped command shows why and starts no turn", func(t *testing.T) {
		h := newHarness(t, 100, 24)
		withCommands(h, func(context.Context, string, string) (string, func(), error) {
			return "", nil, errors.New("/review stopped at review.md:5 (!`git push`): Permission to use Bash has been denied.")
		})
		h.typeText("/review")
		_, cmd := h.m.Update(keyMsg("enter"))
		h.send(cmd())
		if h.m.running {
			t.Error("a turn runs")
		}
		if s := h.screen(); !strings.Contains(s, "/review stopped at review.md:5") {
			t.Errorf("the screen lacks the reason:\n%s", s)
		}
	})
}
