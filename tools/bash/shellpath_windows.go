package bash

import (
	"os"
	"os/exec"
	"path/filepath"
)

// FindShell is the shell a Shell with an empty Options.Shell runs, or why there is none.
func FindShell() (string, error) { return defaultShell() }

// defaultShell is Git Bash, as in Claude Code, found by FindGitBash; its error says what to
// install and what to set, and the Bash tool refuses every call with it.
func defaultShell() (string, error) {
	return FindGitBash(GitBashLookup{
		Getenv: os.Getenv,
		IsFile: func(p string) bool {
			fi, err := os.Stat(p)
			return err == nil && fi.Mode().IsRegular()
		},
		LookPath: exec.LookPath,
	})
}

// pwdCommand reports the shell's directory as a Windows path (Git Bash's pwd -W: C:/Users/x,
// where plain pwd says /c/Users/x, which the system would read as a folder of the current
// drive).
const pwdCommand = "pwd -W"

// toShell is a Windows path as Git Bash reads it: with forward slashes, which it takes as they
// are, where a backslash would be an escape in the trap's quoting.
func toShell(p string) string { return filepath.ToSlash(p) }
