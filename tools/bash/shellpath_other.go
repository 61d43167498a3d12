//go:build !windows

package bash

// FindShell is the shell a Shell with an empty Options.Shell runs, or why there is none.
func FindShell() (string, error) { return defaultShell() }

// defaultShell is the shell of the Bash tool when Options.Shell is empty.
func defaultShell() (string, error) { return "/bin/bash", nil }

// pwdCommand reports the shell's directory as a path of this system, symlinks resolved.
const pwdCommand = "pwd -P"

// toShell is a path of this system as the shell reads it in a variable.
func toShell(p string) string { return p }
