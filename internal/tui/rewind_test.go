package tui

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm"
)

// fakeCheckpoints records the rewinds the chat asks for.
type fakeCheckpoints struct{ rewound []string }

func (f *fakeCheckpoints) Begin(ctx context.Context, id, label string) (context.Context, error) {
	return ctx, nil
}
func (f *fakeCheckpoints) Changed(id string) []string { return []string{"/p/a.go"} }
func (f *fakeCheckpoints) Rewind(_ context.Context, id string) (string, error) {
	f.rewound = append(f.rewound, id)
	return "Put back 1 file(s): /p/a.go.", nil
}

// TestRewindChoices: the picker's choices rewind the files, the conversation, or both, to
// before the chosen message; the conversation's choices put the message back in the input.
func TestRewindChoices(t *testing.T) {
	tests := []struct {
		key          string
		wantFiles    bool
		wantMessages int
		wantInput    string
	}{
		{rewindBoth, true, 2, "second"},
		{rewindCode, true, 4, ""},
		{rewindConversation, false, 2, "second"},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			h := newHarness(t, 80, 30)
			cp := &fakeCheckpoints{}
			h.m.cfg.Checkpoints = cp
			// Two messages and their answers, as two turns leave them.
			for i, text := range []string{"first", "second"} {
				h.m.entries = append(h.m.entries, &entry{kind: entryUser, text: text})
				h.m.beginPoint(t.Context(), text)
				h.m.msgs = append(h.m.msgs, llm.UserText(text), llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockText, Text: "answer"}}})
				h.m.entries = append(h.m.entries, &entry{kind: entryInfo, text: "answer " + string(rune('1'+i))})
			}
			h.typeText("/rewind")
			h.press("enter")
			if s := h.screen(); !strings.Contains(s, "Rewind to before a message") || !strings.Contains(s, "1 file changed since") {
				t.Fatalf("no picker:\n%s", s)
			}
			h.press("enter", tt.key)
			if got := len(cp.rewound) == 1; got != tt.wantFiles {
				t.Errorf("files rewound %v, want %v", cp.rewound, tt.wantFiles)
			}
			if len(h.m.msgs) != tt.wantMessages || h.m.input.Value() != tt.wantInput {
				t.Errorf("%d messages, input %q; want %d, %q", len(h.m.msgs), h.m.input.Value(), tt.wantMessages, tt.wantInput)
			}
			if tt.wantInput != "" && slices.ContainsFunc(h.m.entries, func(e *entry) bool { return e.text == "second" || e.text == "answer 2" }) {
				t.Errorf("the rewound message is still in the transcript")
			}
		})
	}
}
