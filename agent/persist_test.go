package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/reinsdev/reins/hooks"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/llmtest"
	"github.com/reinsdev/reins/tool"
)

type bigIn struct {
	Text  string `json:"text"`
	Image bool   `json:"image,omitempty"`
	Fail  bool   `json:"fail,omitempty"`
}

// bigTool returns its input's text (and an image when asked) under a cap of limit characters.
func bigTool(name string, limit int) tool.Tool {
	return tool.Build(tool.Def[bigIn]{Name: name, MaxResultChars: limit,
		CheckPermissions: allowAny[bigIn],
		Call: func(_ context.Context, in bigIn, _ *tool.Env) (tool.Result, error) {
			r := tool.Result{Content: []tool.Content{tool.Text(in.Text)}, IsError: in.Fail, Output: in.Text}
			if in.Image {
				r.Content = append(r.Content, tool.Content{Type: "image", MediaType: "image/png", Data: "iVBORw0KGgo="})
			}
			return r, nil
		}})
}

func TestResultPersistence(t *testing.T) {
	const limit = 100
	lines := strings.Repeat(strings.Repeat("x", 99)+"\n", 40) // 4,000 bytes in lines of 100
	long := strings.Repeat("€", 2000)                         // 6,000 bytes in 3-byte runes, no line break
	cases := []struct {
		name    string
		tool    string
		in      bigIn
		persist bool
		preview string // the preview the block must show, when persisted
	}{
		{name: "under the cap", in: bigIn{Text: strings.Repeat("a", limit-1)}},
		{name: "exactly at the cap", in: bigIn{Text: strings.Repeat("a", limit)}},
		{name: "one over the cap", in: bigIn{Text: strings.Repeat("a", limit+1)}, persist: true, preview: strings.Repeat("a", limit+1)},
		// 100 characters in 200 bytes: the cap counts characters.
		{name: "multibyte at the cap", in: bigIn{Text: strings.Repeat("é", limit)}},
		{name: "cut at a line", in: bigIn{Text: lines}, persist: true, preview: lines[:2000-1] + "\n..."},
		{name: "multibyte cut at a rune", in: bigIn{Text: long}, persist: true, preview: long[:2046] + "\n..."},
		{name: "image kept", in: bigIn{Text: lines, Image: true}, persist: true, preview: lines[:2000-1] + "\n..."},
		{name: "error result goes whole", in: bigIn{Text: lines, Fail: true}},
		{name: "tool that never persists", tool: "never", in: bigIn{Text: lines}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "tool-results")
			input, _ := json.Marshal(tc.in)
			name := tc.tool
			if name == "" {
				name = "Big"
			}
			p := llmtest.NewScript(use(name, string(input)), say("done"))
			var outputs []map[string]any
			bus := &Bus{}
			var mu sync.Mutex
			stop := bus.Subscribe(func(e Event) {
				if e.Type == EventToolResults {
					mu.Lock()
					outputs = append(outputs, e.Outputs)
					mu.Unlock()
				}
			})
			a := &Agent{Provider: p, Model: "m", Tools: []tool.Tool{bigTool("Big", limit), bigTool("never", tool.NeverPersist)},
				Permissions: newPerms(t), ResultsDir: dir, Bus: bus}
			if _, err := a.Run(context.Background(), nil, llm.UserText("go")); err != nil {
				t.Fatal(err)
			}
			stop()
			res := lastResults(t, p)[0]
			text := res.Content[0].Text
			path := filepath.Join(dir, res.ToolUseID+".txt")
			if !tc.persist {
				if text != tc.in.Text {
					t.Fatalf("result changed: got %d bytes %.80q", len(text), text)
				}
				if _, err := os.Stat(path); !os.IsNotExist(err) {
					t.Fatalf("a file was saved for a result that went whole: %v", err)
				}
				return
			}
			saved, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(saved) != tc.in.Text {
				t.Fatalf("saved file holds %d bytes, want the whole %d", len(saved), len(tc.in.Text))
			}
			want := "<persisted-output>\nOutput too large (" + tool.FormatSize(int64(len(tc.in.Text))) + "). Full output saved to: " + path +
				"\n\nPreview (first 2KB):\n" + tc.preview + "\n</persisted-output>"
			if text != want {
				t.Fatalf("block:\n%s\nwant:\n%s", text, want)
			}
			if !utf8.ValidString(text) {
				t.Fatal("the preview cuts a character")
			}
			wantBlocks := 1
			if tc.in.Image {
				wantBlocks = 2
				if res.Content[1].Type != llm.BlockImage {
					t.Fatalf("second block %s, want the image", res.Content[1].Type)
				}
			}
			if len(res.Content) != wantBlocks {
				t.Fatalf("%d blocks, want %d", len(res.Content), wantBlocks)
			}
			for p, want := range map[string]os.FileMode{path: 0o600, dir: 0o700} {
				if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
					t.Fatalf("%s: mode %v (%v), want %v", p, fi.Mode().Perm(), err, want)
				}
			}
			// The structured output (SDK consumers, hooks) keeps the whole text.
			mu.Lock()
			defer mu.Unlock()
			if got := outputs[0][res.ToolUseID]; got != tc.in.Text {
				t.Fatalf("structured output changed: %.80v", got)
			}
		})
	}
}

// A result that cannot be saved goes to the model whole, and the log hears why.
func TestResultPersistenceWriteFailure(t *testing.T) {
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	text := strings.Repeat("z", 500)
	p := llmtest.NewScript(use("Big", `{"text":"`+text+`"}`), say("done"))
	bus := &Bus{}
	var mu sync.Mutex
	var notices []string
	stop := bus.Subscribe(func(e Event) {
		if e.Type == EventNotice {
			mu.Lock()
			notices = append(notices, e.Text)
			mu.Unlock()
		}
	})
	a := &Agent{Provider: p, Model: "m", Tools: []tool.Tool{bigTool("Big", 100)}, Permissions: newPerms(t),
		ResultsDir: filepath.Join(blocker, "tool-results"), Bus: bus}
	if _, err := a.Run(context.Background(), nil, llm.UserText("go")); err != nil {
		t.Fatal(err)
	}
	stop()
	if got := resultText(lastResults(t, p)[0]); got != text {
		t.Fatalf("result %.80q, want the whole text", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(notices) != 1 || !strings.Contains(notices[0], "sent whole") {
		t.Fatalf("notices %q, want one saying the result went whole", notices)
	}
}

func TestResultFileName(t *testing.T) {
	for id, want := range map[string]string{
		"toolu_01AbC-9": "toolu_01AbC-9.txt",
		"../../etc/x":   "______etc_x.txt",
		"":              "result.txt",
		"a b/c\x00":     "a_b_c_.txt",
	} {
		if got := resultFileName(id); got != want {
			t.Errorf("resultFileName(%q) = %q, want %q", id, got, want)
		}
	}
}

// fileTool writes its text to a file, as Grep does with a large output, from the Env's
// CreateResultFile (or a temporary file of its own when there is none, in own).
func fileTool(limit int, own string) tool.Tool {
	return tool.Build(tool.Def[bigIn]{Name: "Spill", MaxResultChars: limit,
		CheckPermissions: allowAny[bigIn],
		Call: func(_ context.Context, in bigIn, env *tool.Env) (tool.Result, error) {
			create := env.CreateResultFile
			if create == nil {
				create = func() (*os.File, error) { return os.CreateTemp(own, "own-*") }
			}
			f, err := create()
			if err != nil {
				return tool.Result{}, err
			}
			defer f.Close()
			if _, err := f.WriteString(in.Text); err != nil {
				return tool.Result{}, err
			}
			head := in.Text[:min(len(in.Text), tool.TextFileHead)]
			return tool.Result{TextFile: &tool.TextFile{Path: f.Name(), Size: int64(len(in.Text)),
				Chars: int64(utf8.RuneCountInString(in.Text)), Head: head}}, nil
		}})
}

// When the result's name in the folder is taken (here by a folder), the result goes whole, with
// a notice for each way it could not be saved, and no partial file is left behind.
func TestResultPersistenceRenameFailure(t *testing.T) {
	text := strings.Repeat("z", 500)
	for _, tc := range []struct {
		name    string
		tool    tool.Tool
		notices []string
	}{
		{name: "in memory", tool: bigTool("Spill", 100), notices: []string{"sent whole"}},
		{name: "in a file", tool: fileTool(100, t.TempDir()), notices: []string{"read back into memory", "sent whole"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "tool-results")
			taken := filepath.Join(dir, "toolu_1_0.txt") // the id use gives the first call
			if err := os.MkdirAll(filepath.Join(taken, "x"), 0o700); err != nil {
				t.Fatal(err)
			}
			p := llmtest.NewScript(use("Spill", `{"text":"`+text+`"}`), say("done"))
			bus := &Bus{}
			var mu sync.Mutex
			var notices []string
			stop := bus.Subscribe(func(e Event) {
				if e.Type == EventNotice {
					mu.Lock()
					notices = append(notices, e.Text)
					mu.Unlock()
				}
			})
			a := &Agent{Provider: p, Model: "m", Tools: []tool.Tool{tc.tool}, Permissions: newPerms(t), ResultsDir: dir, Bus: bus}
			if _, err := a.Run(context.Background(), nil, llm.UserText("go")); err != nil {
				t.Fatal(err)
			}
			stop()
			if got := resultText(lastResults(t, p)[0]); got != text {
				t.Fatalf("result %.80q, want the whole text", got)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(notices) != len(tc.notices) {
				t.Fatalf("notices %q, want %d", notices, len(tc.notices))
			}
			for i, want := range tc.notices {
				if !strings.Contains(notices[i], want) {
					t.Errorf("notice %d is %q, want it to say %q", i, notices[i], want)
				}
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if e.Name() != filepath.Base(taken) {
					t.Errorf("left behind: %s", e.Name())
				}
			}
		})
	}
}

// A result the tool wrote to a file is moved into the results folder when it is too large,
// and read back (the file removed) when it is not, or when there is no results folder.
func TestResultTextFile(t *testing.T) {
	lines := strings.Repeat(strings.Repeat("y", 99)+"\n", 100)
	for _, tc := range []struct {
		name    string
		text    string
		noDir   bool
		persist bool
	}{
		{name: "over the cap", text: lines, persist: true},
		{name: "at the cap", text: strings.Repeat("é", 100)},
		{name: "no results folder", text: lines, noDir: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "tool-results")
			own := t.TempDir()
			if tc.noDir {
				dir = ""
			}
			input, _ := json.Marshal(bigIn{Text: tc.text})
			p := llmtest.NewScript(use("Spill", string(input)), say("done"))
			hookIn := filepath.Join(t.TempDir(), "post.json")
			a := &Agent{Provider: p, Model: "m", Tools: []tool.Tool{fileTool(100, own)}, Permissions: newPerms(t), ResultsDir: dir,
				Hooks: hookRunner(t, hooks.Hook{Event: hooks.PostToolUse, Command: "cat > '" + hookIn + "'"})}
			if _, err := a.Run(context.Background(), nil, llm.UserText("go")); err != nil {
				t.Fatal(err)
			}
			res := lastResults(t, p)[0]
			got := resultText(res)
			// The PostToolUse hook sees what the model got: the text, or the block naming the
			// saved file.
			var post struct {
				ToolResponse string `json:"tool_response"`
			}
			if data, err := os.ReadFile(hookIn); err != nil || json.Unmarshal(data, &post) != nil {
				t.Fatalf("the PostToolUse hook's input: %v\n%s", err, data)
			}
			if post.ToolResponse != got {
				t.Errorf("the PostToolUse hook got %d bytes %.80q, the model %d bytes %.80q", len(post.ToolResponse), post.ToolResponse, len(got), got)
			}
			if !tc.persist {
				if got != tc.text {
					t.Fatalf("result %d bytes %.80q, want the whole text", len(got), got)
				}
			} else {
				path := filepath.Join(dir, res.ToolUseID+".txt")
				want := "<persisted-output>\nOutput too large (" + tool.FormatSize(int64(len(tc.text))) + "). Full output saved to: " + path +
					"\n\nPreview (first 2KB):\n" + tc.text[:1999] + "\n...\n</persisted-output>"
				if got != want {
					t.Fatalf("block:\n%s\nwant:\n%s", got, want)
				}
				if saved, err := os.ReadFile(path); err != nil || string(saved) != tc.text {
					t.Fatalf("saved file: %d bytes, %v", len(saved), err)
				}
			}
			// Nothing else is left: no partial file in the results folder, none of the tool's own.
			for _, d := range []string{dir, own} {
				if d == "" {
					continue
				}
				entries, _ := os.ReadDir(d)
				for _, e := range entries {
					if !tc.persist || e.Name() != res.ToolUseID+".txt" {
						t.Errorf("left behind: %s", filepath.Join(d, e.Name()))
					}
				}
			}
		})
	}
}
