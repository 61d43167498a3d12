package cli

import "github.com/reinsdev/reins/internal/cli/cmdutil"

// The exit codes under the names the package's tests use ([cmdutil.ExitCode] is the one place
// that turns errors into them).
const (
	exitOK           = cmdutil.ExitOK
	exitError        = cmdutil.ExitError
	exitUsage        = cmdutil.ExitUsage
	exitAsk          = cmdutil.ExitAsk
	exitDenied       = cmdutil.ExitDenied
	exitInvalidInput = cmdutil.ExitInvalidInput
	exitToolError    = cmdutil.ExitToolError
	exitMaxTurns     = cmdutil.ExitMaxTurns
	exitChanged      = cmdutil.ExitChanged
	exitCancel       = cmdutil.ExitCancel
)
