package bash

import (
	"context"

	"github.com/reinsdev/reins/bashrules"
	"github.com/reinsdev/reins/bashrules/gitcli"
	"github.com/reinsdev/reins/permission"
)

// checkPermissions decides for a command through the Bash analysis. The command runs in the
// shell's directory, so its relative paths are checked against that directory. With
// autoAllowBashIfSandboxed, a command that will run sandboxed is then allowed unless the
// analysis found a reason that must reach a person (see sandboxAutoAllow).
func (s *Shell) checkPermissions(ctx context.Context, pc *permission.Context, in Input) permission.Decision {
	s.remember(pc)
	// The damage count asks git which files it would lose are untracked or ignored.
	d := bashrules.Check(bashrules.WithGit(ctx, gitcli.Git{}), s.atShellDir(pc), in.Command)
	if !pc.Sandbox().AutoAllowBash || !wouldSandbox(pc, in) {
		return d
	}
	return sandboxAutoAllow(ctx, d)
}

// sandboxAutoAllow is the Bash check's sandbox step: the OS confines what the command can
// touch, so the lack of an allow rule no longer needs a person, nor does a path outside the
// working directories (the sandbox decides what is reachable there). What still wins: deny
// rules, ask rules, safety checks, and asks where the analysis could not see what the command
// runs (command substitution, eval, malformed input) — there a deny rule might be dodged, so
// the command is not allowed unseen.
func sandboxAutoAllow(ctx context.Context, d permission.Decision) permission.Decision {
	keep := d.Behavior == permission.Deny || d.Behavior == permission.Allow ||
		(d.Behavior == permission.Ask && (d.Reason == nil || d.Reason.Type != permission.ReasonWorkingDir))
	if keep {
		permission.Note(ctx, permission.Step{Name: "bash: sandbox auto-allow", Outcome: "skip",
			Detail: "would run sandboxed, but the check's " + d.Behavior.String() + " stands"})
		return d
	}
	permission.Note(ctx, permission.Step{Name: "bash: sandbox auto-allow", Outcome: "allow", Detail: permission.SandboxAutoAllowDetail})
	return permission.Decision{Behavior: permission.Allow, UpdatedInput: d.UpdatedInput,
		Reason: &permission.Reason{Type: permission.ReasonOther, Detail: permission.SandboxAutoAllowDetail}}
}

// isReadOnly reports whether a command only reads, which also makes it safe to run alongside
// other calls. Without a permission context it answers false, the safe answer.
func (s *Shell) isReadOnly(in Input) bool {
	pc := s.permissions()
	if pc == nil {
		return false
	}
	return bashrules.IsReadOnly(s.atShellDir(pc), in.Command)
}

// atShellDir returns pc with the shell's current directory as its working directory.
func (s *Shell) atShellDir(pc *permission.Context) *permission.Context {
	if cwd := s.Cwd(); cwd != "" && cwd != pc.Cwd() {
		return pc.WithCwd(cwd)
	}
	return pc
}
