package app

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/llmtest"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/settings"
)

func gitCmd(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func treeOf(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == ".git" {
			return filepath.SkipDir
		}
		info, _ := d.Info()
		out[rel] = info.Mode().String()
		if d.Type().IsRegular() {
			b, _ := os.ReadFile(p)
			out[rel] += " " + string(b)
		}
		return nil
	})
	return out
}

// A session started with a worktree works in it: its edits land in the worktree only, git
// lists the worktree, the main repository's hooks stay protected from inside it (a write
// there asks, and headless that is a denial, however the call is allowed), and removing it
// leaves the main working tree byte for byte as it was.
func TestWorktreeSession(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	p := newProject(t)
	gitCmd(t, p.dir, "init", "-q", "-b", "main")
	p.write(t, "README.md", "main\n")
	gitCmd(t, p.dir, "add", ".")
	gitCmd(t, p.dir, "commit", "-q", "-m", "first")
	before := treeOf(t, p.dir)
	hook := filepath.Join(p.dir, ".git", "hooks", "pre-commit")
	srv := llmtest.NewAnthropicServer(t,
		llmtest.UseTools(
			llmtest.Call("Write", `{"file_path":"notes.txt","content":"from the session\n"}`),
			llmtest.Call("Write", fmt.Sprintf(`{"file_path":%q,"content":"#!/bin/sh\ncurl evil\n"}`, hook)),
			llmtest.Call("Bash", fmt.Sprintf(`{"command":"echo 'curl evil' > %s"}`, hook))),
		llmtest.Say("Done."))
	p.env["ANTHROPIC_API_KEY"], p.env["ANTHROPIC_BASE_URL"] = "test-key", srv.URL
	var report strings.Builder
	a, err := New(t.Context(), Options{Cwd: p.dir, Getenv: p.getenv, Report: testReporter(&report), Worktree: &WorktreeOptions{Name: "feat"},
		Settings: SettingsOptions{Flags: settings.Flags{AllowedTools: []string{"Write", "Bash"}, Mode: "acceptEdits"}}})
	if err != nil {
		t.Fatalf("New: %v\n%s", err, report.String())
	}
	w := a.Session.Worktree
	if w == nil || a.Cwd != filepath.Join(p.dir, ".claude", "worktrees", "feat") || !strings.Contains(report.String(), "Working in the worktree") {
		t.Fatalf("worktree %+v, cwd %s\n%s", w, a.Cwd, report.String())
	}
	if dirs := a.Permissions.Context().WorkingDirs(); len(dirs) != 1 || dirs[0] != w.Path {
		t.Errorf("working directories %v, want only the worktree", dirs)
	}
	if _, err := a.RunTurn(t.Context(), a.Session.History, llm.UserText("go")); err != nil {
		t.Fatal(err)
	}
	rs := toolResults(t, srv.Requests()[1])
	if len(rs) != 3 || rs[0].IsError || !rs[1].IsError || !rs[2].IsError {
		t.Fatalf("tool results %+v", rs)
	}
	if b, err := os.ReadFile(filepath.Join(w.Path, "notes.txt")); err != nil || string(b) != "from the session\n" {
		t.Errorf("the edit is not in the worktree: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(p.dir, "notes.txt")); err == nil {
		t.Error("the edit landed in the main working tree")
	}
	if _, err := os.Stat(hook); err == nil {
		t.Error("the main repository's pre-commit hook was written from inside the worktree")
	}
	if !strings.Contains(gitCmd(t, p.dir, "worktree", "list"), w.Path) {
		t.Error("git worktree list does not show the session's worktree")
	}
	pc := a.Permissions.Context()
	for _, mode := range []permission.Mode{permission.ModeAcceptEdits, permission.ModeBypass} {
		if d := pc.WithMode(mode).CheckWrite(t.Context(), hook); d.Behavior != permission.Ask || d.Reason.Type != permission.ReasonSafetyCheck {
			t.Errorf("%s: a write of the main repository's hook: %s %+v", mode, d.Behavior, d.Reason)
		}
	}
	if err := a.RemoveWorktree(t.Context(), false); err == nil {
		t.Fatal("an open session's worktree was removed")
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if ch, _ := a.WorktreeChanges(t.Context()); len(ch) != 1 {
		t.Errorf("changes %v, want the untracked notes.txt", ch)
	}
	if err := a.RemoveWorktree(t.Context(), true); err != nil {
		t.Fatal(err)
	}
	if after := treeOf(t, p.dir); !maps.Equal(before, after) {
		t.Errorf("the main working tree changed:\nbefore %v\nafter  %v", before, after)
	}
	if strings.Contains(gitCmd(t, p.dir, "worktree", "list"), w.Path) {
		t.Error("the removed worktree is still listed")
	}
}
