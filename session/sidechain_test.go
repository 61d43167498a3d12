package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm"
)

func TestSidechainsAreStoredBesideTheSessionAndReadBack(t *testing.T) {
	st := NewStore(t.TempDir())
	cwd := "/work/project"
	w, err := st.Create(cwd, "m")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.AppendMessage(llm.UserText("parent")); err != nil {
		t.Fatal(err)
	}
	sc, err := st.CreateSidechain(w, "a0123", cwd, "m")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(strings.TrimSuffix(w.Path, ".jsonl"), "subagents", "agent-a0123.jsonl"); sc.Path != want {
		t.Errorf("sidechain path %s, want %s", sc.Path, want)
	}
	for _, m := range []llm.Message{llm.UserText("find it"), {Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("found")}}} {
		if err := sc.AppendMessage(m); err != nil {
			t.Fatal(err)
		}
	}
	sc.Close()
	if _, err := st.CreateSidechain(w, "../escape", cwd, "m"); err == nil {
		t.Error("an agent id with a path was accepted")
	}

	tr, err := st.Load(t.Context(), cwd, w.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Messages) != 1 {
		t.Errorf("the parent's transcript has %d messages, want its own 1", len(tr.Messages))
	}
	side, err := st.Sidechains(t.Context(), tr)
	if err != nil {
		t.Fatal(err)
	}
	got := side["a0123"]
	if got == nil || len(got.Messages) != 2 || got.Messages[1].Text() != "found" {
		t.Fatalf("sidechains = %+v", side)
	}

	// A session without sub-agents has none, and an unreadable one is an error.
	w2, _ := st.Create(cwd, "m")
	w2.Close()
	tr2, _ := st.Load(t.Context(), cwd, w2.ID)
	if side, err := st.Sidechains(t.Context(), tr2); err != nil || len(side) != 0 {
		t.Errorf("no sub-agents: %v, %v", side, err)
	}
	if os.Getuid() != 0 {
		os.Chmod(filepath.Dir(sc.Path), 0)
		defer os.Chmod(filepath.Dir(sc.Path), 0o700)
		if _, err := st.Sidechains(t.Context(), tr); err == nil {
			t.Error("an unreadable sub-agent folder was not reported")
		}
	}
}
