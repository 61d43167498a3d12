package session

import (
	"errors"
	"strings"
	"testing"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
)

// TestLoadBefore: the conversation before a point is exactly what the file held when the
// point's checkpoint line was written, whatever came after (later turns, a compaction, the same
// point named again), and a file without the point's line is ErrNoPoint, whatever the text of
// its messages.
func TestLoadBefore(t *testing.T) {
	say := func(text string) func(*Writer) error {
		return func(w *Writer) error {
			role := llm.RoleUser
			if strings.HasPrefix(text, "A:") {
				role = llm.RoleAssistant
			}
			return w.AppendMessage(llm.Message{Role: role, Content: []llm.Block{llm.Text(text)}})
		}
	}
	point := func(id string) func(*Writer) error { return func(w *Writer) error { return w.AppendPoint(id) } }
	compact := func(w *Writer) error { return w.AppendBoundary(agent.Boundary{Trigger: "manual"}) }
	for _, tt := range []struct {
		name    string
		lines   []func(*Writer) error
		point   string
		want    string // the messages' texts, "|"-joined
		wantErr error
	}{
		{name: "the first point: nothing before it", point: "p1",
			lines: []func(*Writer) error{point("p1"), say("one"), say("A:1"), point("p2"), say("two"), say("A:2")}},
		{name: "the second point: the first turn", point: "p2", want: "one|A:1",
			lines: []func(*Writer) error{point("p1"), say("one"), say("A:1"), point("p2"), say("two"), say("A:2")}},
		{name: "a point after a compaction starts from its summary", point: "p2", want: "U:summary|A:1",
			lines: []func(*Writer) error{point("p1"), say("one"), compact, say("U:summary"), say("A:1"), point("p2"), say("two")}},
		{name: "a point before a later compaction keeps the whole conversation", point: "p2", want: "one|A:1",
			lines: []func(*Writer) error{point("p1"), say("one"), say("A:1"), point("p2"), say("two"), compact, say("U:summary")}},
		{name: "a point named twice is where it first began", point: "p1", want: "",
			lines: []func(*Writer) error{point("p1"), say("one"), say("A:1"), point("p1"), say("two")}},
		{name: "a prompt a hook blocked: the next point still cuts at its own line", point: "p2", want: "",
			lines: []func(*Writer) error{point("p1"), point("p2"), say("two")}},
		{name: "no checkpoint line: a prompt with the point's text is not taken for it", point: "p2", wantErr: ErrNoPoint,
			lines: []func(*Writer) error{say("one"), say("A:p2"), say("p2")}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			store := NewStore(t.TempDir())
			w, err := store.Create("/proj", "m")
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range tt.lines {
				if err := l(w); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			got, err := store.LoadBefore(t.Context(), "/proj", w.ID, tt.point)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("error %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var texts []string
			for _, m := range got.Messages {
				texts = append(texts, m.Text())
			}
			if strings.Join(texts, "|") != tt.want {
				t.Errorf("before %s: %q, want %q", tt.point, strings.Join(texts, "|"), tt.want)
			}
			// The whole file still reads as before: the lines are for rewind only.
			all, err := store.Load(t.Context(), "/proj", w.ID)
			if err != nil || all.Skipped != 0 {
				t.Errorf("Load: %v, %d lines skipped", err, all.Skipped)
			}
		})
	}
}

// TestForkHoldsTheConversation: Store.Fork writes a new session whose Load is the
// transcript's conversation, and leaves the original file as it was.
func TestForkHoldsTheConversation(t *testing.T) {
	store := NewStore(t.TempDir())
	w, err := store.Create("/proj", "m")
	if err != nil {
		t.Fatal(err)
	}
	w.AppendPoint("p1")
	w.AppendMessage(llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.Text("one")}})
	w.AppendMessage(llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("A:1")}})
	w.AppendPoint("p2")
	w.AppendMessage(llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.Text("two")}})
	w.Close()
	before, err := store.LoadBefore(t.Context(), "/proj", w.ID, "p2")
	if err != nil {
		t.Fatal(err)
	}
	id, err := store.Fork("/proj", "m", before)
	if err != nil {
		t.Fatal(err)
	}
	fork, err := store.Load(t.Context(), "/proj", id)
	if err != nil {
		t.Fatal(err)
	}
	if id == w.ID || len(fork.Messages) != 2 || fork.Messages[1].Text() != "A:1" {
		t.Errorf("fork %s: %+v", id, fork.Messages)
	}
	orig, err := store.Load(t.Context(), "/proj", w.ID)
	if err != nil || len(orig.Messages) != 3 || len(orig.Points) != 2 {
		t.Errorf("the original: %v, %d messages, points %v", err, len(orig.Messages), orig.Points)
	}
}
