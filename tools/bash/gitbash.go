package bash

import (
	"fmt"
	"strings"
)

// GitBashVar names the bash.exe of Git for Windows when it is not where Reins looks: Claude
// Code's variable, read the same way.
const GitBashVar = "CLAUDE_CODE_GIT_BASH_PATH"

// GitBashLookup is what finding Git Bash reads of the system, so that the search is a pure
// function of it: the environment, whether a path is an existing file, and where a program on
// PATH is (exec.LookPath).
type GitBashLookup struct {
	Getenv   func(string) string
	IsFile   func(string) bool
	LookPath func(string) (string, error)
}

// FindGitBash finds the bash.exe of Git for Windows, which runs the Bash tool's commands on
// Windows, as Claude Code does there: the file CLAUDE_CODE_GIT_BASH_PATH names, then
// %ProgramFiles%\Git\bin\bash.exe, then bin\bash.exe beside the folder of the git.exe on PATH
// (<Git>\cmd\git.exe has <Git>\bin\bash.exe). A variable that names no file is an error, not
// a reason to look elsewhere: the person chose that shell. The error, a [*GitBashError], says
// what to install and what to set.
func FindGitBash(l GitBashLookup) (string, error) {
	if p := l.Getenv(GitBashVar); p != "" {
		if l.IsFile(p) {
			return p, nil
		}
		return "", &GitBashError{Set: p}
	}
	var tried []string
	if pf := l.Getenv("ProgramFiles"); pf != "" {
		p := winJoin(pf, `Git\bin\bash.exe`)
		if l.IsFile(p) {
			return p, nil
		}
		tried = append(tried, p)
	}
	if git, err := l.LookPath("git.exe"); err == nil && git != "" {
		p := winJoin(winDir(winDir(git)), `bin\bash.exe`)
		if l.IsFile(p) {
			return p, nil
		}
		tried = append(tried, p)
	}
	return "", &GitBashError{Tried: tried}
}

// GitBashError says that Git Bash was not found, and how to make it so.
type GitBashError struct {
	// Set is the value of CLAUDE_CODE_GIT_BASH_PATH when it names no file.
	Set string
	// Tried are the places looked at otherwise.
	Tried []string
}

func (e *GitBashError) Error() string {
	const install = "install Git for Windows (https://git-scm.com/downloads/win)"
	const example = `C:\Program Files\Git\bin\bash.exe`
	if e.Set != "" {
		return fmt.Sprintf("%s is set to %s, which is not a file: set it to the bash.exe of Git for Windows, such as %s, or %s", GitBashVar, e.Set, example, install)
	}
	msg := "Reins on Windows runs the Bash tool's commands in Git Bash, which was not found"
	if len(e.Tried) > 0 {
		msg += " (looked at " + strings.Join(e.Tried, ", ") + ")"
	}
	return fmt.Sprintf("%s: %s, or, if it is installed elsewhere, set %s to its bash.exe, such as %s", msg, install, GitBashVar, example)
}

// winJoin joins a Windows folder and a relative path with backslashes, whatever system runs
// it (the lookup's tests run on every system).
func winJoin(dir, rel string) string {
	return strings.TrimRight(dir, `\/`) + `\` + rel
}

// winDir is the folder of a Windows path ("" for a bare name).
func winDir(p string) string {
	p = strings.TrimRight(p, `\/`)
	if i := strings.LastIndexAny(p, `\/`); i >= 0 {
		return p[:i]
	}
	return ""
}
