package cli

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm/llmtest"
)

// TestContinuedSessionKnowsItsFiles: a file read and edited in one `reins -p`, then edited
// again after `-p --continue` in a new process, needs no new Read; one changed on disk in
// between is still refused (issue 41, chat item 2).
func TestContinuedSessionKnowsItsFiles(t *testing.T) {
	bin := reinsBinary(t)
	for _, changed := range []bool{false, true} {
		t.Run(fmt.Sprintf("changed on disk %v", changed), func(t *testing.T) {
			e := newE2E(t, bin)
			f := e.write("notes.txt", "one\ntwo\n")
			edit := func(old, new string) llmtest.Turn {
				return llmtest.UseTools(llmtest.Call("Edit", fmt.Sprintf(`{"file_path":%q,"old_string":%q,"new_string":%q}`, f, old, new)))
			}
			srv := llmtest.NewAnthropicServer(t,
				llmtest.UseTools(llmtest.Call("Read", fmt.Sprintf(`{"file_path":%q}`, f))), edit("one", "ONE"), llmtest.Say("Edited."),
				edit("two", "TWO"), llmtest.Say("Edited again."))
			e.anthropic(srv)
			e.run("-p", "--permission-mode", "acceptEdits", "edit notes.txt").wantCode(0)
			if changed {
				os.WriteFile(f, []byte("ONE\ntwo\nthree\n"), 0o644)
			}
			e.run("-p", "--continue", "--permission-mode", "acceptEdits", "and the second line").wantCode(0)
			results := toolResults(t, srv.Requests()[4])
			text := jsonText(results)
			refused := results[0].IsError
			if refused != changed {
				t.Fatalf("the Edit after --continue: %s; want refused %v", text, changed)
			}
			if changed && !strings.Contains(text, "modified since") {
				t.Errorf("refused with %s, want the file-changed message", text)
			}
			if b, _ := os.ReadFile(f); !changed && string(b) != "ONE\nTWO\n" {
				t.Errorf("notes.txt holds %q", b)
			}
		})
	}
}
