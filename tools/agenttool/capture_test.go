package agenttool

import (
	"context"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/reinsdev/reins/agentdef"
	"github.com/reinsdev/reins/toolcall"
)

// callLog is a checkpoint capturer that notes each call it is asked about.
type callLog struct {
	mu    sync.Mutex
	calls []string
}

func (l *callLog) BeforeCall(_ context.Context, c toolcall.Call, _ any) func() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, c.Tool.Name())
	return func() {}
}

// TestBackgroundSubAgentIsCapturedIntoItsTurn: a background sub-agent runs under a context of
// its own, yet its calls reach the capturer of the turn that started it.
func TestBackgroundSubAgentIsCapturedIntoItsTurn(t *testing.T) {
	bg := &agentdef.Definition{Name: "bg", Description: "d", Prompt: "BG", Background: true}
	h := newHarness(t, harnessOpts{asker: &grantingAsker{}, defs: []*agentdef.Definition{bg}})
	h.router.script(parentKey, use("Agent", `{"description":"d","prompt":"p","subagent_type":"bg"}`), say("ok"))
	h.router.script("BG", use("Read", `{"file_path":"`+filepath.Join(h.dir, "main.go")+`"}`), say("read"))
	log := &callLog{}
	h.run(toolcall.WithCapturer(t.Context(), log), "go")
	if err := h.manager.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	if !slices.Equal(log.calls, []string{"Agent", "Read"}) {
		t.Errorf("captured calls %v, want the Agent call and the background sub-agent's Read", log.calls)
	}
}
