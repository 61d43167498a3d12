package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm/llmtest"
	"github.com/reinsdev/reins/session"
)

// TestResultPersistenceE2E runs the real reins binary: a Grep result over Grep's cap reaches
// the model as a <persisted-output> block, the file it names holds the whole result, and the
// model may Read that file without being asked. Without a session the folder ends with the run.
func TestResultPersistenceE2E(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the end-to-end tests use a POSIX shell")
	}
	bin := reinsBinary(t)
	var lines strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&lines, "needle number %04d of the haystack\n", i)
	}
	grep := llmtest.Call("Grep", `{"pattern":"needle","output_mode":"content","head_limit":0}`)
	blockRE := regexp.MustCompile(`^<persisted-output>\nOutput too large \(([0-9.]+KB)\)\. Full output saved to: (\S+)\n\nPreview \(first 2KB\):\n(?s:(.*))\n\.\.\.\n</persisted-output>$`)

	// check returns the saved file named by the block the model got for the Grep call.
	check := func(t *testing.T, srv *llmtest.Server) (path string) {
		t.Helper()
		rs := toolResults(t, srv.Requests()[1])
		if len(rs) != 1 || rs[0].IsError || len(rs[0].Content) != 1 {
			t.Fatalf("Grep result %+v", rs)
		}
		m := blockRE.FindStringSubmatch(rs[0].Content[0].Text)
		if m == nil {
			t.Fatalf("the model got no <persisted-output> block:\n%.600s", rs[0].Content[0].Text)
		}
		path = m[2]
		saved, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(saved), "needle number"); n != 3000 {
			t.Errorf("the saved result holds %d matching lines, want 3000", n)
		}
		if !strings.HasPrefix(string(saved), m[3]) || len(m[3]) > 2048 {
			t.Errorf("the preview (%d bytes) is not the head of the saved result", len(m[3]))
		}
		return path
	}

	// savedGrep is where the session id's first tool result is saved.
	savedGrep := func(e *e2e, id string) string {
		return filepath.Join(session.NewStore(filepath.Join(e.home, ".reins")).Dir(e.dir), id, "tool-results", "toolu_llmtest_1_0.txt")
	}

	t.Run("session", func(t *testing.T) {
		e := newE2E(t, bin)
		e.write("big.txt", lines.String())
		const id = "6b0c2a4e-3f1d-4c8e-9a57-0d2e4f6a8b1c"
		want := savedGrep(e, id)
		srv := llmtest.NewAnthropicServer(t,
			llmtest.UseTools(grep),
			llmtest.UseTools(llmtest.Call("Read", fmt.Sprintf(`{"file_path":%q,"offset":2999,"limit":2}`, want))),
			llmtest.Say("3000 matches."))
		e.anthropic(srv).run("-p", "--session-id", id, "count the needles")
		e.wantCode(0)
		if got := check(t, srv); got != want {
			t.Errorf("saved to %s, want %s beside the session file", got, want)
		}
		// Grep wrote its output there itself (it is larger than 80 KB) and the agent renamed
		// it: nothing else is left in the folder.
		if entries, _ := os.ReadDir(filepath.Dir(want)); len(entries) != 1 {
			t.Errorf("the results folder holds %d files, want 1", len(entries))
		}
		// Read of the saved file: outside the project, yet allowed without a prompt (a
		// headless run would have denied the ask).
		rs := toolResults(t, srv.Requests()[2])
		if len(rs) != 1 || rs[0].IsError || !strings.Contains(rs[0].Content[0].Text, "needle number 2998") {
			t.Fatalf("Read of the saved result: %+v", rs)
		}
	})

	t.Run("Read deny rule wins", func(t *testing.T) {
		e := newE2E(t, bin)
		e.write("big.txt", lines.String())
		const id = "7c1d3b5f-4a2e-4d9f-8b68-1e3f5a7b9c2d"
		want := savedGrep(e, id)
		srv := llmtest.NewAnthropicServer(t,
			llmtest.UseTools(grep),
			llmtest.UseTools(llmtest.Call("Read", fmt.Sprintf(`{"file_path":%q}`, want))),
			llmtest.Say("Denied."))
		e.anthropic(srv).run("-p", "--session-id", id, "--disallowedTools", "Read(//"+strings.TrimPrefix(e.home, "/")+"/**)", "--", "count the needles")
		e.wantCode(0)
		check(t, srv)
		rs := toolResults(t, srv.Requests()[2])
		if len(rs) != 1 || !rs[0].IsError || !strings.Contains(rs[0].Content[0].Text, "denied") {
			t.Fatalf("Read under a deny rule: %+v", rs)
		}
	})

	t.Run("no session", func(t *testing.T) {
		e := newE2E(t, bin)
		e.write("big.txt", lines.String())
		tmp := filepath.Join(filepath.Dir(e.dir), "tmp")
		if err := os.Mkdir(tmp, 0o700); err != nil {
			t.Fatal(err)
		}
		e.env = append(e.env, "TMPDIR="+tmp)
		srv := llmtest.NewAnthropicServer(t, llmtest.UseTools(grep), llmtest.Say("3000 matches."))
		e.anthropic(srv).run("-p", "--no-session-persistence", "count the needles")
		e.wantCode(0)
		rs := toolResults(t, srv.Requests()[1])
		m := blockRE.FindStringSubmatch(rs[0].Content[0].Text)
		if m == nil {
			t.Fatalf("the model got no <persisted-output> block:\n%.600s", rs[0].Content[0].Text)
		}
		path := m[2]
		if !strings.HasPrefix(path, tmp+string(filepath.Separator)) {
			t.Errorf("saved to %s, want a temporary folder under %s", path, tmp)
		}
		if _, err := os.Stat(filepath.Dir(path)); !os.IsNotExist(err) {
			t.Errorf("the temporary results folder outlived the run: %v", err)
		}
	})
}
