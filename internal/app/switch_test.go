package app

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/llmtest"
	"github.com/reinsdev/reins/session"
)

// After /resume switches sessions, the agent and its sub-agents save large results in the new
// session's folder, and the model may read that folder's files without being asked (the run
// is headless here: an ask would be denied).
func TestSwitchSessionMovesResultsDir(t *testing.T) {
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	dir, home, managed := filepath.Join(root, "project"), filepath.Join(root, "home"), filepath.Join(root, "managed")
	for _, d := range []string{dir, home, managed} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var lines strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&lines, "needle number %04d of the haystack\n", i)
	}
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte(lines.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	grep := llmtest.Call("Grep", `{"pattern":"needle","output_mode":"content","head_limit":0}`)

	store := session.NewStore(filepath.Join(home, ".reins"))
	other, err := store.Create(dir, "m")
	if err != nil {
		t.Fatal(err)
	}
	otherResults := other.ToolResultsDir()
	other.Close()
	seed := filepath.Join(otherResults, "seed.txt")
	if err := os.MkdirAll(otherResults, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(seed, []byte("saved earlier\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	srv := llmtest.NewAnthropicServer(t,
		llmtest.UseTools(llmtest.Call("Read", fmt.Sprintf(`{"file_path":%q}`, seed)), grep),
		llmtest.UseTools(llmtest.Call("Agent", `{"description":"count","prompt":"count the needles","subagent_type":"general-purpose"}`)),
		llmtest.UseTools(grep),
		llmtest.Say("3000."),
		llmtest.Say("Done."))
	env := map[string]string{"HOME": home, "REINS_MANAGED_DIR": managed, "OLLAMA_HOST": "127.0.0.1:1",
		"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": srv.URL}
	var stderr strings.Builder
	a, err := New(t.Context(), Options{Cwd: dir, Getenv: func(k string) string { return env[k] }, Report: testReporter(&stderr)})
	if err != nil {
		t.Fatalf("New: %v\n%s", err, stderr.String())
	}
	defer a.Close()
	first := a.Session.resultsDir
	if _, err := a.SwitchSession(t.Context(), other.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := a.RunTurn(t.Context(), a.Session.History, llm.UserText("go")); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}

	rs := toolResults(t, srv.Requests()[1])
	if len(rs) != 2 || rs[0].IsError || !strings.Contains(rs[0].Content[0].Text, "saved earlier") {
		t.Errorf("Read of a saved result of the session switched to: %+v", rs)
	}
	for _, id := range []string{"toolu_llmtest_1_1", "toolu_llmtest_3_0"} { // the agent's Grep, the sub-agent's
		if _, err := os.Stat(filepath.Join(otherResults, id+".txt")); err != nil {
			t.Errorf("result %s not saved in the folder of the session switched to: %v", id, err)
		}
	}
	if _, err := os.Stat(first); !os.IsNotExist(err) {
		t.Errorf("the first session's results folder was used after the switch: %v", err)
	}
	if subs, err := store.Sidechains(t.Context(), &session.Transcript{ID: other.ID, Path: other.Path}); err != nil || len(subs) != 1 {
		t.Errorf("sub-agent transcripts of the session switched to: %d, %v", len(subs), err)
	}
}
