package bash

import (
	"errors"
	"os/exec"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/reinsdev/reins/bashrules"
	"github.com/reinsdev/reins/permission"
)

// Sandbox confines a command with the operating system (package sandbox provides it).
type Sandbox interface {
	// Wrap rewrites cmd to run confined. visible are files the command must be able to read
	// and writable files it may write (the shell's start-up and directory-report files).
	// finish is called with the command's output once it has ended (empty when it succeeded)
	// and returns the violations to report.
	Wrap(cmd *exec.Cmd, label string, visible, writable []string) (finish func(output string) []string, err error)
}

// errNoSandbox fails a command that the settings say runs sandboxed when the shell has no
// sandbox: it must never run unconfined instead.
var errNoSandbox = errors.New("the sandbox is enabled in the settings but not running in this session, so the command was not run")

// wouldSandbox reports whether a call runs inside the sandbox: sandboxing is enabled, and the
// command neither asked to run unsandboxed (honoured only when allowUnsandboxedCommands) nor
// matches excludedCommands.
func wouldSandbox(pc *permission.Context, in Input) bool {
	p := pc.Sandbox()
	if !p.Enabled {
		return false
	}
	if in.DangerouslyDisableSandbox && p.AllowUnsandboxed {
		return false
	}
	return !excluded(p.ExcludedCommands, in.Command)
}

// excluded reports whether the command, or any simple command in it, matches an
// excludedCommands pattern (Bash rule syntax: "docker:*", "npm run *", exact).
func excluded(patterns []string, command string) bool {
	if len(patterns) == 0 {
		return false
	}
	parts := []string{command}
	if f, err := syntax.NewParser().Parse(strings.NewReader(command), ""); err == nil {
		syntax.Walk(f, func(n syntax.Node) bool {
			if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 0 {
				start, end := c.Args[0].Pos().Offset(), c.Args[len(c.Args)-1].End().Offset()
				if int(end) <= len(command) && start < end {
					parts = append(parts, command[start:end])
				}
			}
			return true
		})
	}
	for _, p := range patterns {
		for _, part := range parts {
			if bashrules.MatchRule(p, part) {
				return true
			}
		}
	}
	return false
}

// confine wraps cmd in the sandbox when the call runs sandboxed. finish is nil for a command
// that runs unconfined.
func (s *Shell) confine(pc *permission.Context, in Input, cmd *exec.Cmd, visible, writable []string) (finish func(string) []string, err error) {
	if !wouldSandbox(pc, in) {
		return nil, nil
	}
	if s.opts.Sandbox == nil {
		return nil, errNoSandbox
	}
	return s.opts.Sandbox.Wrap(cmd, in.Command, visible, writable)
}

// violationNote formats what the sandbox refused, for the tool result: the model must learn
// why the command failed rather than retry it blindly.
func violationNote(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return "<sandbox_violations>\n" + strings.Join(lines, "\n") + "\n</sandbox_violations>\n" +
		"The command ran in the OS sandbox, which refused the operations above: writes are allowed only in the working directories and the session's temporary directory (never to protected files such as .git/hooks or settings), network access only to allowed domains."
}
