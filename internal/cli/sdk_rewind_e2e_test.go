package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/reinsdev/reins/llm/llmtest"
)

// TestAgentSDKRewindsAnEditAndRmRf: with enableFileCheckpointing, the real SDK's rewindFiles
// puts back, byte for byte, a file an Edit changed and a folder rm -rf removed, its git-ignored
// .env included.
func TestAgentSDKRewindsAnEditAndRmRf(t *testing.T) {
	node := nodeSDK(t)
	bin := reinsBinary(t)
	e := newE2E(t, bin)
	files := rewindProject(e)
	os.Chmod(filepath.Join(e.dir, "src/main.go"), 0o600)
	srv := llmtest.NewAnthropicServer(t, rewindTurns(e, "Done.")...)
	e.anthropic(srv)
	// The scenario checks the answers; here the state on disk before the rewind is checked
	// through the tool results, and after it byte for byte.
	e.drive(node, "rewind")
	for _, req := range srv.Requests()[1:4] {
		if res, err := req.ToolResults(); err != nil || len(res) != 1 || res[0].IsError {
			t.Fatalf("a call failed, so nothing was changed to rewind: %+v %v", res, err)
		}
	}
	wantFiles(t, e.dir, files)
	if info, err := os.Stat(filepath.Join(e.dir, "src/main.go")); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("src/main.go mode %v (%v), want 0600", info.Mode(), err)
	}
}

// rewindProject writes the project both rewind tests change: a file an Edit changes and a src
// folder, with a git-ignored .env, that rm -rf removes. It returns the files as written.
func rewindProject(e *e2e) map[string]string {
	files := map[string]string{
		"a.go":            "package a\n\nfunc A() int { return 1 }\n",
		"src/main.go":     "package main\n\nfunc main() {}\n",
		"src/lib/util.go": "package lib\n",
		"src/.env":        "API_TOKEN=do-not-lose-me\n",
		".gitignore":      ".env\n",
	}
	for p, c := range files {
		os.MkdirAll(filepath.Join(e.dir, filepath.Dir(p)), 0o755)
		e.write(p, c)
	}
	return files
}

// rewindTurns reads and edits a.go, removes src, and answers last.
func rewindTurns(e *e2e, last string) []llmtest.Turn {
	a := filepath.Join(e.dir, "a.go")
	return []llmtest.Turn{
		llmtest.UseTools(llmtest.Call("Read", `{"file_path":"`+a+`"}`)),
		llmtest.UseTools(llmtest.Call("Edit", `{"file_path":"`+a+`","old_string":"return 1","new_string":"return 2 // changed"}`)),
		llmtest.UseTools(llmtest.Call("Bash", `{"command":"rm -rf src","description":"Remove src"}`)),
		llmtest.Say(last),
	}
}

// wantFiles checks that every file under dir holds what files says, byte for byte.
func wantFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, want := range files {
		got, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil || string(got) != want {
			t.Errorf("%s = %q (%v), want %q", p, got, err, want)
		}
	}
}
