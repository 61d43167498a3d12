package session

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/tool"
)

// stateSession writes a session of two exchanges with uuids, usage and file states: a read of
// a.go in the first, of b.go in the second, and a.go forgotten then.
func stateSession(t *testing.T, store *Store, cwd string) *Writer {
	t.Helper()
	w, err := store.Create(cwd, "m")
	if err != nil {
		t.Fatal(err)
	}
	read := func(p string) *tool.FileRead { return &tool.FileRead{Hash: "h-" + p, ModTime: time.Unix(1, 0).UTC()} }
	steps := []func() error{
		func() error { return w.AppendMessageInfo(llm.UserText("one"), agent.MessageInfo{UUID: "u1"}) },
		func() error { return w.AppendFileState("/p/a.go", read("a.go")) },
		func() error {
			return w.AppendMessageInfo(llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("first")}},
				agent.MessageInfo{UUID: "a1", Usage: &llm.Usage{InputTokens: 100}})
		},
		func() error { return w.AppendMessageInfo(llm.UserText("two"), agent.MessageInfo{UUID: "u2"}) },
		func() error { return w.AppendFileState("/p/b.go", read("b.go")) },
		func() error { return w.AppendFileState("/p/a.go", nil) },
		func() error {
			return w.AppendMessageInfo(llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("second")}},
				agent.MessageInfo{UUID: "a2", Usage: &llm.Usage{InputTokens: 190_000}})
		},
	}
	for _, s := range steps {
		if err := s(); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func texts(msgs []llm.Message) string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.Text())
	}
	return strings.Join(out, "|")
}

// TestSessionState: a session read back has the last reply's usage and how much of the
// conversation it covered, and what the model knew of files; LoadUpTo ends the conversation
// at a message, with the usage and the files of that moment; a resume_at line does the same
// for what is read after it.
func TestSessionState(t *testing.T) {
	ctx := context.Background()
	store := NewStore(t.TempDir())
	cwd := "/p"
	w := stateSession(t, store, cwd)
	w.Close()

	full, err := store.Load(ctx, cwd, w.ID)
	if err != nil {
		t.Fatal(err)
	}
	if full.Usage.InputTokens != 190_000 || full.Measured != 4 {
		t.Errorf("usage %+v over %d messages, want the last reply's over 4", full.Usage, full.Measured)
	}
	if files := full.Files(); len(files) != 1 || files["/p/b.go"].Hash != "h-b.go" {
		t.Errorf("files %v, want b.go alone (a.go was forgotten)", files)
	}

	at, err := store.LoadUpTo(ctx, cwd, w.ID, "a1")
	if err != nil {
		t.Fatal(err)
	}
	if got := texts(at.Messages); got != "one|first" {
		t.Errorf("up to a1: %q", got)
	}
	if at.Usage.InputTokens != 100 || at.Measured != 2 {
		t.Errorf("up to a1: usage %+v over %d", at.Usage, at.Measured)
	}
	if files := at.Files(); files["/p/a.go"].Hash != "h-a.go" || len(files) != 1 {
		t.Errorf("up to a1: files %v, want a.go alone (b.go was read after the point)", files)
	}
	if _, err := store.LoadUpTo(ctx, cwd, w.ID, "nope"); !errors.Is(err, ErrNoMessage) {
		t.Errorf("an unknown uuid: %v", err)
	}

	// Going on from a1 in the same file: a resume_at line, then a new exchange.
	w2, err := store.Reopen(full)
	if err != nil {
		t.Fatal(err)
	}
	w2.AppendResumeAt("a1", at)
	w2.AppendMessageInfo(llm.UserText("three"), agent.MessageInfo{UUID: "u3"})
	w2.Close()
	again, err := store.Load(ctx, cwd, w.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got := texts(again.Messages); got != "one|first|three" || again.Skipped != 0 {
		t.Errorf("after resume_at: %q (%d skipped)", got, again.Skipped)
	}
	if again.Measured != 2 || again.Usage.InputTokens != 100 {
		t.Errorf("after resume_at: usage %+v over %d, want a1's over 2", again.Usage, again.Measured)
	}
	if files := again.Files(); len(files) != 1 || files["/p/a.go"].Hash != "h-a.go" {
		t.Errorf("after resume_at: files %v, want a.go alone", files)
	}
}

// TestSessionStateAcrossCompaction: a compaction ends the uuids and the usage before it (a
// uuid of the replaced conversation is refused), and the files carried over stay known.
func TestSessionStateAcrossCompaction(t *testing.T) {
	ctx := context.Background()
	store := NewStore(t.TempDir())
	w := stateSession(t, store, "/p")
	w.AppendBoundary(agent.Boundary{Trigger: "auto"})
	w.AppendMessageInfo(llm.UserText("summary"), agent.MessageInfo{UUID: "s1"})
	w.Close()
	tr, err := store.Load(ctx, "/p", w.ID)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Measured != 0 || texts(tr.Messages) != "summary" {
		t.Errorf("after compaction: measured %d, %q", tr.Measured, texts(tr.Messages))
	}
	if _, ok := tr.Files()["/p/b.go"]; !ok {
		t.Error("b.go, not forgotten at the compaction, is no longer known")
	}
	if _, err := store.LoadUpTo(ctx, "/p", w.ID, "a1"); !errors.Is(err, ErrNoMessage) {
		t.Errorf("a uuid before the compaction: %v", err)
	}
	if up, err := store.LoadUpTo(ctx, "/p", w.ID, "s1"); err != nil || texts(up.Messages) != "summary" {
		t.Errorf("up to the summary: %v", err)
	}
}

// TestPeek: a listing reads the first prompt and the branch from the start of the file, and
// the file's size; an empty session has no prompt.
func TestPeek(t *testing.T) {
	ctx := context.Background()
	store := NewStore(t.TempDir())
	w, err := store.Create("/p", "m")
	if err != nil {
		t.Fatal(err)
	}
	empty, _ := store.Create("/p", "m")
	empty.Close()
	w.AppendBranch("feature/x")
	w.AppendMessage(llm.UserText("fix the flaky test"))
	w.AppendMessage(llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("on it")}})
	w.AppendMessage(llm.UserText("and the docs"))
	w.Close()
	p, err := store.Peek(ctx, "/p", w.ID)
	if err != nil || p.Prompt != "fix the flaky test" || p.Branch != "feature/x" || p.Size == 0 {
		t.Errorf("peek %+v, %v", p, err)
	}
	if p, err := store.Peek(ctx, "/p", empty.ID); err != nil || p.Prompt != "" {
		t.Errorf("empty session: %+v, %v", p, err)
	}
}
