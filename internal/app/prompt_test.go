package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
)

func TestSystemPrompt(t *testing.T) {
	read := tool.Build(tool.Def[struct{}]{Name: "Read", Prompt: "Reads files.",
		Call: func(context.Context, struct{}, *tool.Env) (tool.Result, error) { return tool.Result{}, nil }})
	blocks, err := SystemPrompt(context.Background(), []tool.Tool{read}, PromptEnv{
		Cwd: "/work/p", Dirs: []string{"/work/lib"}, Platform: "linux", Git: true,
		Date: time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC), Mode: permission.ModePlan, Append: "Be brief.",
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 3 || !blocks[0].CacheBreakpoint {
		t.Fatalf("blocks %+v", blocks)
	}
	all := blocks[0].Text + blocks[1].Text + blocks[2].Text
	for _, want := range []string{"## Read\nReads files.", "Working directory: /work/p", "Additional working directories: /work/lib",
		"Is directory a git repo: Yes", "Platform: linux", "Today's date: 2026-03-04", "Plan mode is active", "Be brief."} {
		if !strings.Contains(all, want) {
			t.Errorf("system prompt lacks %q:\n%s", want, all)
		}
	}
}

func TestIsGitRepo(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "a", "b")
	os.MkdirAll(sub, 0o755)
	os.WriteFile(filepath.Join(root, "a", ".git"), []byte("gitdir: elsewhere"), 0o644)
	if !IsGitRepo(sub) {
		t.Error("a .git file in a parent was not found")
	}
}
