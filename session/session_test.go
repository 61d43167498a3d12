package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/permission"
)

func TestSanitize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/home/ann/src/reins", "-home-ann-src-reins"},
		{"/tmp/a b.c_d", "-tmp-a-b-c-d"},
		{"/ünï", "--n-"},
	}
	for _, tt := range tests {
		if got := Sanitize(tt.in); got != tt.want {
			t.Errorf("Sanitize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	long1, long2 := "/"+strings.Repeat("a", 300)+"1", "/"+strings.Repeat("a", 300)+"2"
	s1, s2 := Sanitize(long1), Sanitize(long2)
	if len(s1) > 210 || s1 == s2 {
		t.Errorf("long paths: %q and %q", s1, s2)
	}
}

func toolUse(id string) llm.Block {
	return llm.ToolUse(id, "Read", json.RawMessage(`{"file_path":"/x"}`))
}

func result(id, text string) llm.Block {
	return llm.ToolResult(id, []llm.Block{llm.Text(text)}, false)
}

func TestWriteAndLoad(t *testing.T) {
	store := NewStore(t.TempDir())
	cwd := "/work/project"
	w, err := store.Create(cwd, "claude-sonnet-4-5")
	if err != nil {
		t.Fatal(err)
	}
	msgs := []llm.Message{
		llm.UserText("read x"),
		{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("reading"), toolUse("t1")}},
		{Role: llm.RoleUser, Content: []llm.Block{result("t1", "contents")}},
		{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("done")}},
	}
	for _, m := range msgs[:2] {
		if err := w.AppendMessage(m); err != nil {
			t.Fatal(err)
		}
	}
	st := agent.SessionState{Mode: permission.ModeAcceptEdits, Rules: []agent.SessionRule{{Behavior: permission.Allow, Rule: "Bash(ls)"}}}
	if err := w.AppendPermissions(st); err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs[2:] {
		if err := w.AppendMessage(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(w.Path) != filepath.Join(store.Root, "-work-project") || filepath.Base(w.Path) != w.ID+".jsonl" {
		t.Errorf("session file at %s", w.Path)
	}

	id, err := store.Latest(cwd)
	if err != nil || id != w.ID {
		t.Fatalf("Latest = %q, %v; want %q", id, err, w.ID)
	}
	tr, err := store.Load(t.Context(), cwd, id)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(tr.Messages)
	want, _ := json.Marshal(msgs)
	if string(got) != string(want) {
		t.Errorf("messages:\n%s\nwant\n%s", got, want)
	}
	if tr.Permissions == nil || tr.Permissions.Mode != permission.ModeAcceptEdits || tr.Permissions.Rules[0].Rule != "Bash(ls)" {
		t.Errorf("permissions %+v", tr.Permissions)
	}
	if tr.Cwd != cwd || tr.Model != "claude-sonnet-4-5" || tr.Skipped != 0 {
		t.Errorf("transcript %+v", tr)
	}
	// --resume finds a session of another project by id.
	if _, err := store.Load(t.Context(), "/elsewhere", id); err != nil {
		t.Errorf("Load from another cwd: %v", err)
	}
}

func TestCrashLeavesValidHistory(t *testing.T) {
	store := NewStore(t.TempDir())
	w, err := store.Create("/p", "m")
	if err != nil {
		t.Fatal(err)
	}
	w.AppendMessage(llm.UserText("go"))
	w.AppendMessage(llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{toolUse("a"), toolUse("b")}})
	w.Close()
	// The process died while writing the results: a torn line at the end.
	f, _ := os.OpenFile(w.Path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"type":"message","message":{"role":"user","content":[{"type":"tool_res`)
	f.Close()

	tr, err := store.Load(t.Context(), "/p", w.ID)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Skipped != 1 {
		t.Errorf("skipped %d lines, want 1", tr.Skipped)
	}
	checkValid(t, tr.Messages)
	last := tr.Messages[len(tr.Messages)-1]
	if len(last.Content) != 2 || last.Content[0].ToolUseID != "a" || last.Content[1].Content[0].Text != LostResultMessage {
		t.Errorf("repaired results %+v", last.Content)
	}

	// Appending after the torn line starts on a new line, and the file reads back.
	w2, err := store.Reopen(tr)
	if err != nil {
		t.Fatal(err)
	}
	w2.AppendMessage(llm.UserText("again"))
	w2.Close()
	tr2, _ := store.Load(t.Context(), "/p", w.ID)
	if tr2.Skipped != 1 || tr2.Messages[len(tr2.Messages)-1].Content[2].Text != "again" {
		t.Errorf("after reopen: skipped %d, messages %+v", tr2.Skipped, tr2.Messages)
	}
}

func TestLatestPicksNewest(t *testing.T) {
	store := NewStore(t.TempDir())
	var ids []string
	for i := range 3 {
		w, err := store.Create("/p", "m")
		if err != nil {
			t.Fatal(err)
		}
		w.Close()
		mt := time.Now().Add(time.Duration(i-10) * time.Minute)
		if i == 1 {
			mt = time.Now()
		}
		os.Chtimes(w.Path, mt, mt)
		ids = append(ids, w.ID)
	}
	if id, err := store.Latest("/p"); err != nil || id != ids[1] {
		t.Errorf("Latest = %s, %v; want %s", id, err, ids[1])
	}
	// List orders them newest first: ids[1], then ids[2] (8 minutes ago), then ids[0].
	saved, err := store.List("/p")
	var got []string
	for _, sv := range saved {
		got = append(got, sv.ID)
	}
	if err != nil || !slices.Equal(got, []string{ids[1], ids[2], ids[0]}) {
		t.Errorf("List = %v, %v; want %v", got, err, []string{ids[1], ids[2], ids[0]})
	}
	if saved, err := store.List("/nothing"); err != nil || len(saved) != 0 {
		t.Errorf("List of an empty project = %v, %v", saved, err)
	}
	if _, err := store.Latest("/nothing"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Latest of an empty project: %v", err)
	}
	for _, bad := range []string{"../x", "a/b", "", ".hidden"} {
		if _, err := store.Find("/p", bad); err == nil {
			t.Errorf("Find(%q) accepted", bad)
		}
	}
}

func TestRepair(t *testing.T) {
	asst := func(bs ...llm.Block) llm.Message { return llm.Message{Role: llm.RoleAssistant, Content: bs} }
	user := func(bs ...llm.Block) llm.Message { return llm.Message{Role: llm.RoleUser, Content: bs} }
	tests := []struct {
		name string
		in   []llm.Message
		want string
	}{
		{"already valid", []llm.Message{llm.UserText("a"), asst(toolUse("1")), user(result("1", "r"))},
			"user[a] assistant[use 1] user[result 1]"},
		{"missing results", []llm.Message{llm.UserText("a"), asst(toolUse("1"), toolUse("2")), user(result("2", "r"))},
			"user[a] assistant[use 1 use 2] user[result 1! result 2]"},
		{"trailing tool use", []llm.Message{llm.UserText("a"), asst(llm.Text("t"), toolUse("1"))},
			"user[a] assistant[t use 1] user[result 1!]"},
		{"stray result", []llm.Message{llm.UserText("a"), asst(llm.Text("t")), user(result("9", "r"), llm.Text("b"))},
			"user[a] assistant[t] user[b]"},
		{"only stray result", []llm.Message{llm.UserText("a"), asst(llm.Text("t")), user(result("9", "r")), asst(llm.Text("u"))},
			"user[a] assistant[t u]"},
		{"same roles merged", []llm.Message{llm.UserText("a"), llm.UserText("b"), asst(llm.Text("t"))},
			"user[a b] assistant[t]"},
		{"leading assistant", []llm.Message{asst(toolUse("1")), user(result("1", "r"), llm.Text("a"))},
			"user[a]"},
		{"duplicate use id", []llm.Message{llm.UserText("a"), asst(toolUse("1"), toolUse("1")), user(result("1", "r"), result("1", "s"))},
			"user[a] assistant[use 1] user[result 1]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Repair(tt.in)
			checkValid(t, got)
			if s := summarize(got); s != tt.want {
				t.Errorf("got  %s\nwant %s", s, tt.want)
			}
		})
	}
}

func summarize(msgs []llm.Message) string {
	var parts []string
	for _, m := range msgs {
		var bs []string
		for _, b := range m.Content {
			switch b.Type {
			case llm.BlockText:
				bs = append(bs, b.Text)
			case llm.BlockToolUse:
				bs = append(bs, "use "+b.ID)
			case llm.BlockToolResult:
				s := "result " + b.ToolUseID
				if b.IsError {
					s += "!"
				}
				bs = append(bs, s)
			}
		}
		parts = append(parts, fmt.Sprintf("%s[%s]", m.Role, strings.Join(bs, " ")))
	}
	return strings.Join(parts, " ")
}

// checkValid fails unless msgs can be sent to a model: starting with a user message, roles
// alternating, no empty message, and every tool_use answered exactly once, first thing in the
// next message, by nothing else.
func checkValid(t testing.TB, msgs []llm.Message) {
	t.Helper()
	for i, m := range msgs {
		if len(m.Content) == 0 {
			t.Fatalf("message %d is empty: %s", i, summarize(msgs))
		}
		if want := [2]llm.Role{llm.RoleUser, llm.RoleAssistant}[i%2]; m.Role != want {
			t.Fatalf("message %d has role %s, want %s: %s", i, m.Role, want, summarize(msgs))
		}
		if m.Role == llm.RoleUser {
			var uses []llm.Block
			if i > 0 {
				uses = msgs[i-1].ToolUses()
			}
			n := 0
			for _, b := range m.Content {
				if b.Type == llm.BlockToolResult {
					if n >= len(uses) || b.ToolUseID != uses[n].ID {
						t.Fatalf("message %d: result for %s out of place: %s", i, b.ToolUseID, summarize(msgs))
					}
					n++
				}
			}
			if n != len(uses) {
				t.Fatalf("message %d answers %d of %d uses: %s", i, n, len(uses), summarize(msgs))
			}
			for j := 0; j < n; j++ {
				if m.Content[j].Type != llm.BlockToolResult {
					t.Fatalf("message %d: results are not first: %s", i, summarize(msgs))
				}
			}
		} else if i == len(msgs)-1 && len(m.ToolUses()) > 0 {
			t.Fatalf("the last message has unanswered tool uses: %s", summarize(msgs))
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"type":"session","version":1,"sessionId":"x","cwd":"/p"}
{"type":"message","message":{"role":"user","content":[{"type":"text","text":"hi"}]}}
{"type":"message","message":{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"Read","input":{}}]}}
{"type":"permissions","permissions":{"mode":"plan"}}
`))
	f.Add([]byte(`{"type":"message","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"z","content":[]}]}}
{"type":"message","message":{"role":"assistant","content":[{"type":"text","text":"x"},{"type":"tool_use","id":"a","name":"R","input":{}},{"type":"tool_use","id":"a","name":"R","input":{}}]}}
{"type":"message","message":{"role":"assistant","content":[{"type":"tool_use","id":"b","name":"R","input":{}}]}}
{"type":"message","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"b","content":[]},{"type":"tool_result","tool_use_id":"a"}]}}
{"type":"mess`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr := Parse(data)
		checkValid(t, tr.Messages)
	})
}

// TestNamesMatchTheirRegexps: Sanitize and validName, written as loops so that no regexp is
// compiled at start-up, agree with the regexps they replace on edge cases and random strings.
func TestNamesMatchTheirRegexps(t *testing.T) {
	nonAlnum := regexp.MustCompile(`[^A-Za-z0-9]`)
	name := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)
	inputs := []string{"", "a", ".a", "a.", "-", "a-b_c.d", "ü", "aü", "a\xffb", "\xff", "a\nb", "a/b", "a b",
		strings.Repeat("a", 128), strings.Repeat("a", 129), strings.Repeat("a", 127) + "ü", "/home/ann/src/reins"}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("aZ09._-/ \xff\xc3\xbc\n")
	for range 2000 {
		b := make([]byte, rng.IntN(140))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		inputs = append(inputs, string(b))
	}
	for _, in := range inputs {
		if want := nonAlnum.ReplaceAllString(in, "-"); len(want) <= maxSanitizedLen && Sanitize(in) != want {
			t.Errorf("Sanitize(%q) = %q, want %q", in, Sanitize(in), want)
		}
		if got, want := validName(in), name.MatchString(in); got != want {
			t.Errorf("validName(%q) = %v, want %v", in, got, want)
		}
	}
}
