package bash

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsdev/reins/tool"
)

// The lookup on a real Windows system (Wine in CI): Program Files and the variable, and a
// Shell without Git Bash, whose Bash tool is off and refuses a call with what to install.
func TestGitBashOnWindows(t *testing.T) {
	pf := t.TempDir()
	t.Setenv("ProgramFiles", pf)
	t.Setenv("PATH", t.TempDir()) // no git.exe
	t.Setenv(GitBashVar, "")

	t.Run("missing", func(t *testing.T) {
		sh := New(Options{OutputDir: t.TempDir()})
		defer sh.Close()
		var ge *GitBashError
		if err := sh.Unavailable(); !errors.As(err, &ge) {
			t.Fatalf("Unavailable = %v, want a *GitBashError", err)
		}
		bt := sh.BashTool()
		if bt.IsEnabled() {
			t.Error("the Bash tool is enabled without a shell")
		}
		in, err := bt.Decode(json.RawMessage(`{"command": "echo hi"}`))
		if err != nil {
			t.Fatal(err)
		}
		fail := bt.ValidateInput(context.Background(), in, &tool.Env{})
		if fail == nil {
			t.Fatal("a call of Bash without Git Bash was accepted")
		}
		for _, want := range []string{"Git for Windows", "https://git-scm.com/downloads/win", GitBashVar, filepath.Join(pf, "Git", "bin", "bash.exe")} {
			if !strings.Contains(fail.Message, want) {
				t.Errorf("refusal %q does not say %q", fail.Message, want)
			}
		}
	})

	bash := filepath.Join(pf, "Git", "bin", "bash.exe")
	if err := os.MkdirAll(filepath.Dir(bash), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bash, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Run("under Program Files", func(t *testing.T) {
		if got, err := defaultShell(); got != bash || err != nil {
			t.Errorf("defaultShell = %q, %v; want %s", got, err, bash)
		}
		sh := New(Options{OutputDir: t.TempDir()})
		defer sh.Close()
		if err := sh.Unavailable(); err != nil || !sh.BashTool().IsEnabled() {
			t.Errorf("Unavailable = %v, enabled %v; want a shell", err, sh.BashTool().IsEnabled())
		}
	})
	t.Run("the variable naming nothing wins", func(t *testing.T) {
		t.Setenv(GitBashVar, filepath.Join(pf, "nope", "bash.exe"))
		if got, err := defaultShell(); got != "" || err == nil || !strings.Contains(err.Error(), GitBashVar+" is set to") {
			t.Errorf("defaultShell = %q, %v; want an error naming %s", got, err, GitBashVar)
		}
	})
}
