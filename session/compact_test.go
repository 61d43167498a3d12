package session

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
)

// TestLoadStartsFromTheLastBoundary: a resumed session goes on from the last compaction's
// summary, and the file still holds every message before it.
func TestLoadStartsFromTheLastBoundary(t *testing.T) {
	store := NewStore(t.TempDir())
	cwd := "/work/project"
	w, err := store.Create(cwd, "claude-sonnet-4-5")
	if err != nil {
		t.Fatal(err)
	}
	write := func(m llm.Message) {
		t.Helper()
		if err := w.AppendMessage(m); err != nil {
			t.Fatal(err)
		}
	}
	write(llm.UserText("first prompt"))
	write(llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("first answer")}})
	if err := w.AppendBoundary(agent.Boundary{Trigger: agent.TriggerAuto, PreTokens: 180_000, Messages: 2}); err != nil {
		t.Fatal(err)
	}
	write(llm.UserText("summary one"))
	write(llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("second answer")}})
	if err := w.AppendBoundary(agent.Boundary{Trigger: agent.TriggerManual, PreTokens: 1000, Messages: 2}); err != nil {
		t.Fatal(err)
	}
	write(llm.UserText("summary two"))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	tr, err := store.Load(t.Context(), cwd, w.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Messages) != 1 || tr.Messages[0].Text() != "summary two" || tr.Skipped != 0 {
		t.Errorf("loaded %d messages (%+v), skipped %d; want the last summary alone", len(tr.Messages), tr.Messages, tr.Skipped)
	}
	// The resume read the file from the last boundary on; the whole file has both.
	if len(tr.Compactions) != 1 || tr.Compactions[0].Trigger != agent.TriggerManual || tr.From == 0 {
		t.Errorf("compactions read %+v from %d", tr.Compactions, tr.From)
	}
	data, err := os.ReadFile(w.Path)
	if err != nil {
		t.Fatal(err)
	}
	if all := Parse(data); len(all.Compactions) != 2 || all.Compactions[0].PreTokens != 180_000 || all.Compactions[1].Trigger != agent.TriggerManual {
		t.Errorf("compactions %+v", all.Compactions)
	}
	for _, want := range []string{"first prompt", "first answer", "summary one", `"type":"compact_boundary"`, `"trigger":"auto"`, `"preTokens":180000`} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("the file lost %s", want)
		}
	}
	// A boundary line without its record is unreadable, not a reset of the conversation.
	tr = Parse([]byte(`{"type":"message","message":{"role":"user","content":[{"type":"text","text":"kept"}]}}` + "\n" + `{"type":"compact_boundary"}` + "\n"))
	if len(tr.Messages) != 1 || tr.Skipped != 1 {
		t.Errorf("a bare boundary: %d messages, %d skipped", len(tr.Messages), tr.Skipped)
	}
	// A crash between the boundary and its summary leaves the conversation as it was.
	tr = Parse([]byte(`{"type":"message","message":{"role":"user","content":[{"type":"text","text":"kept"}]}}` + "\n" +
		`{"type":"compact_boundary","compactMetadata":{"trigger":"auto","preTokens":5,"messages":1}}` + "\n"))
	if len(tr.Messages) != 1 || tr.Messages[0].Text() != "kept" || len(tr.Compactions) != 1 {
		t.Errorf("a boundary without its summary: %d messages", len(tr.Messages))
	}
	var l line
	if err := json.Unmarshal([]byte(strings.TrimSpace(string(bytes.Split(data, []byte("\n"))[3]))), &l); err != nil || l.Type != "compact_boundary" {
		t.Errorf("line 4 is %q (%v)", l.Type, err)
	}
}
