package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/llmtest"
	"github.com/reinsdev/reins/tool"
	"pgregory.net/rapid"
)

// TestCompactionProperty: for any conversation of Reads, Edits, Writes and other calls (with
// results of any size, some failed), and a summary request that the API may refuse as too
// long a few times, compaction never sends a tool_use without its tool_result or the reverse,
// and every file whose read is still known afterwards (so that Edit lets a change through)
// has the content of its last call, a successful Read, in the compacted conversation.
func TestCompactionProperty(t *testing.T) {
	perms := newPerms(t)
	rapid.Check(t, func(t *rapid.T) {
		paths := []string{"/w/a.go", "/w/b.go", "/w/c.go", "/w/d.go", "/w/e.go", "/w/f.go", "/w/g.go"}
		files := tool.NewFileState()
		var msgs []llm.Message
		last := map[string]string{} // a path's content as the model last saw it whole, "" if not
		turns := rapid.IntRange(1, 12).Draw(t, "turns")
		id := 0
		for turn := range turns {
			msgs = append(msgs, llm.UserText(fmt.Sprintf("prompt %d", turn)))
			for rapid.Bool().Draw(t, "calls") {
				var uses, results []llm.Block
				for range rapid.IntRange(1, 3).Draw(t, "n") {
					id++
					tid := fmt.Sprintf("t%d", id)
					p := rapid.SampledFrom(paths).Draw(t, "path")
					name := rapid.SampledFrom([]string{"Read", "Read", "Edit", "Write", "Bash"}).Draw(t, "tool")
					in, _ := json.Marshal(map[string]string{"file_path": p})
					if name == "Bash" {
						in = []byte(`{"command":"ls"}`)
					}
					uses = append(uses, llm.ToolUse(tid, name, in))
					failed := rapid.IntRange(0, 5).Draw(t, "failed") == 0
					size := rapid.SampledFrom([]int{10, 100, 25_000}).Draw(t, "size")
					content := fmt.Sprintf("%s@%d:", p, id) + strings.Repeat("x", size)
					results = append(results, llm.ToolResult(tid, []llm.Block{llm.Text(content)}, failed))
					switch {
					case name == "Bash":
					case failed:
						// A failed call leaves the file state as it was.
					case name == "Read":
						files.Record(p, tool.FileRead{Hash: content})
						last[p] = content
					default:
						// Edit and Write record the file they changed.
						files.Record(p, tool.FileRead{Hash: content})
						last[p] = ""
					}
				}
				msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Content: uses}, llm.Message{Role: llm.RoleUser, Content: results})
			}
			msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("ok")}})
		}
		refusals := rapid.IntRange(0, summaryAttempts).Draw(t, "refusals")
		var answers []llmtest.Answer
		for range refusals {
			answers = append(answers, tooLong)
		}
		answers = append(answers, say("<summary>summary</summary>"))
		p := llmtest.NewScript(answers...)
		a := &Agent{Provider: p, Model: "m", Tools: mappingTools(), Permissions: perms, Env: &tool.Env{Files: files}}
		res, err := a.Compact(context.Background(), msgs, "")
		for i, req := range p.Requests() {
			if perr := pairedCalls(req.Messages); perr != nil {
				t.Fatalf("summary request %d: %v", i, perr)
			}
		}
		if err != nil {
			// Refused too often to summarize: the conversation stays as it was.
			return
		}
		if perr := pairedCalls(res.Messages); perr != nil {
			t.Fatal(perr)
		}
		text := res.Messages[0].Text()
		for _, path := range files.Paths() {
			if last[path] == "" || !strings.Contains(text, last[path]) {
				t.Fatalf("%s is still known after compaction, but its content as last read is not in the conversation", path)
			}
		}
	})
}
