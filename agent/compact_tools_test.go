package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/llmtest"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/tools/files"
	"pgregory.net/rapid"
)

// TestCompactionPropertyRealTools: with the real Read, Edit and Write tools on real files, for
// any session of reads and changes, after a compaction an Edit of a file either asks for a
// new Read or the file's content as the model last saw it whole is in the conversation.
func TestCompactionPropertyRealTools(t *testing.T) {
	root := t.TempDir()
	through := 0
	rapid.Check(t, func(t *rapid.T) {
		dir, err := os.MkdirTemp(root, "w")
		if err != nil {
			t.Fatal(err)
		}
		names := []string{"a.txt", "b.txt", "c.txt"}
		for _, n := range names {
			if err := os.WriteFile(filepath.Join(dir, n), []byte("token0\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		var answers []llmtest.Answer
		for range rapid.IntRange(1, 6).Draw(t, "turns") {
			var calls []string
			for range rapid.IntRange(1, 3).Draw(t, "calls") {
				p := filepath.Join(dir, rapid.SampledFrom(names).Draw(t, "file"))
				switch rapid.SampledFrom([]string{"Read", "Read", "Edit", "Write"}).Draw(t, "tool") {
				case "Read":
					calls = append(calls, "Read", fmt.Sprintf(`{"file_path":%q}`, p))
				case "Edit":
					n := rapid.IntRange(0, 3).Draw(t, "n")
					calls = append(calls, "Edit", fmt.Sprintf(`{"file_path":%q,"old_string":"token%d","new_string":"token%d"}`, p, n, n+1))
				case "Write":
					calls = append(calls, "Write", fmt.Sprintf(`{"file_path":%q,"content":"token%d\n"}`, p, rapid.IntRange(0, 3).Draw(t, "w")))
				}
			}
			answers = append(answers, use(calls...))
		}
		answers = append(answers, say("ok"), say("<summary>s</summary>"))
		var edits []string
		for _, n := range names {
			edits = append(edits, "Edit", fmt.Sprintf(`{"file_path":%q,"old_string":"token","new_string":"TOKEN"}`, filepath.Join(dir, n)))
		}
		answers = append(answers, use(edits...), say("done"))
		p := llmtest.NewScript(answers...)
		pc, err := permission.New(permission.Config{Cwd: dir, Home: root, Mode: permission.ModeAcceptEdits})
		if err != nil {
			t.Fatal(err)
		}
		ts := []tool.Tool{files.NewRead(files.Options{}), files.NewEdit(files.Options{}), files.NewWrite(files.Options{})}
		a := &Agent{Provider: p, Model: "m", Tools: ts, Permissions: NewPermissions(pc, nil), Env: &tool.Env{Files: tool.NewFileState()}}
		res, err := a.Run(context.Background(), nil, llm.UserText("work"))
		if err != nil {
			t.Fatal(err)
		}
		cres, err := a.Compact(context.Background(), res.Messages, "")
		if err != nil {
			t.Fatal(err)
		}
		carried := cres.Messages[0].Text()
		if _, err := a.Run(context.Background(), cres.Messages, llm.UserText("edit them all")); err != nil {
			t.Fatal(err)
		}
		reqs := p.Requests()
		last := reqs[len(reqs)-1].Messages
		for i, r := range last[len(last)-1].Content {
			text := resultText(r)
			if strings.Contains(text, "has not been read yet") || strings.Contains(text, "Read it again") {
				continue
			}
			var in struct {
				FilePath string `json:"file_path"`
			}
			json.Unmarshal(last[len(last)-2].Content[i].Input, &in)
			if !strings.Contains(carried, `{"file_path":"`+in.FilePath+`"}`) {
				t.Fatalf("the Edit of %s went on (%q), but its content is not in the compacted conversation:\n%s", in.FilePath, text, carried)
			}
			through++
		}
	})
	if through == 0 {
		t.Error("no Edit went on after a compaction: the files carried over were never edited, so the property checked only refusals")
	}
}

// TestCompactionCarriesEditedFiles: a file edited after its last Read is carried over a
// compaction as Reins wrote it, so the next Edit goes on; one changed on disk since it was
// written is not carried, and its Edit asks for a new Read.
func TestCompactionCarriesEditedFiles(t *testing.T) {
	for _, changed := range []bool{false, true} {
		t.Run(fmt.Sprintf("changed on disk %v", changed), func(t *testing.T) {
			dir := t.TempDir()
			f := filepath.Join(dir, "a.txt")
			if err := os.WriteFile(f, []byte("one\ntwo\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			p := llmtest.NewScript(
				use("Read", fmt.Sprintf(`{"file_path":%q}`, f)),
				use("Edit", fmt.Sprintf(`{"file_path":%q,"old_string":"one","new_string":"ONE"}`, f)),
				say("edited"),
				say("<summary>s</summary>"),
				use("Edit", fmt.Sprintf(`{"file_path":%q,"old_string":"two","new_string":"TWO"}`, f)),
				say("done"))
			pc, err := permission.New(permission.Config{Cwd: dir, Home: t.TempDir(), Mode: permission.ModeAcceptEdits})
			if err != nil {
				t.Fatal(err)
			}
			ts := []tool.Tool{files.NewRead(files.Options{}), files.NewEdit(files.Options{})}
			a := &Agent{Provider: p, Model: "m", Tools: ts, Permissions: NewPermissions(pc, nil), Env: &tool.Env{Files: tool.NewFileState()}}
			res, err := a.Run(context.Background(), nil, llm.UserText("edit"))
			if err != nil {
				t.Fatal(err)
			}
			if changed {
				os.WriteFile(f, []byte("ONE\ntwo\nthree\n"), 0o644)
			}
			cres, err := a.Compact(context.Background(), res.Messages, "")
			if err != nil {
				t.Fatal(err)
			}
			carried := strings.Contains(cres.Messages[0].Text(), "1\tONE\n2\ttwo\n")
			if _, err := a.Run(context.Background(), cres.Messages, llm.UserText("again")); err != nil {
				t.Fatal(err)
			}
			text := resultText(lastResults(t, p)[0])
			refused := strings.Contains(text, "has not been read yet")
			if carried == changed || refused != changed {
				t.Errorf("carried %v, the Edit after the compaction %q; want carried %v and refused %v", carried, text, !changed, changed)
			}
		})
	}
}
