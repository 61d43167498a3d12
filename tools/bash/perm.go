package bash

import (
	"context"

	"github.com/reinsdev/reins/bashrules"
	"github.com/reinsdev/reins/permission"
)

// checkPermissions decides for a command through the Bash analysis. The command runs in the
// shell's directory, so its relative paths are checked against that directory.
func (s *Shell) checkPermissions(ctx context.Context, pc *permission.Context, in Input) permission.Decision {
	s.remember(pc)
	return bashrules.Check(ctx, s.atShellDir(pc), in.Command)
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
