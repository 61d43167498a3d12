package session

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/permission"
)

// TestSecondWriterIsRefused: a second reins resuming a session that is being written is
// refused with a clear message, never interleaved; once the first writer closes, it may.
func TestSecondWriterIsRefused(t *testing.T) {
	store := NewStore(t.TempDir())
	cwd := "/work/p"
	w1, err := store.Create(cwd, "m")
	if err != nil {
		t.Fatal(err)
	}
	if err := w1.AppendMessage(llm.UserText("hi")); err != nil {
		t.Fatal(err)
	}
	tr, err := store.Load(t.Context(), cwd, w1.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Reopen(tr); !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), "start a new session") {
		t.Fatalf("second writer: %v, want ErrInUse", err)
	}
	if err := w1.Close(); err != nil {
		t.Fatal(err)
	}
	w2, err := store.Reopen(tr)
	if err != nil {
		t.Fatalf("after the first writer closed: %v", err)
	}
	w2.Close()
}

// TestLongLineReadBack: a line longer than the old 64 MiB reader limit is read back, and the
// permission mode recorded after it is not lost.
func TestLongLineReadBack(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 65 MiB line")
	}
	store := NewStore(t.TempDir())
	cwd := "/work/p"
	w, err := store.Create(cwd, "m")
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 65<<20)
	if err := w.AppendMessage(llm.UserText(big)); err != nil {
		t.Fatal(err)
	}
	if err := w.AppendPermissions(agent.SessionState{Mode: permission.ModeAcceptEdits}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	tr, err := store.Load(t.Context(), cwd, w.ID)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Skipped != 0 || len(tr.Messages) != 1 || len(tr.Messages[0].Content[0].Text) != len(big) {
		t.Errorf("skipped %d, %d messages", tr.Skipped, len(tr.Messages))
	}
	if tr.Permissions == nil || tr.Permissions.Mode != permission.ModeAcceptEdits {
		t.Errorf("the permissions line after the long line was lost: %+v", tr.Permissions)
	}
	if info, err := os.Stat(tr.Path); err != nil || info.Size() < 65<<20 {
		t.Fatalf("file: %v %v", info, err)
	}
}

// TestMissingResultSaysRecordWasLost: a tool that ran but whose result was never recorded is
// not shown as interrupted by the user on resume.
func TestMissingResultSaysRecordWasLost(t *testing.T) {
	msgs := Repair([]llm.Message{
		llm.UserText("go"),
		{Role: llm.RoleAssistant, Content: []llm.Block{toolUse("a")}},
	})
	got := msgs[len(msgs)-1].Content[0].Content[0].Text
	if got == agent.InterruptedMessage || !strings.Contains(got, "may have run") {
		t.Errorf("missing result says %q", got)
	}
}
