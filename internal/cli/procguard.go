package cli

import (
	"os"

	"github.com/reinsdev/reins/hooks"
	"github.com/reinsdev/reins/internal/procguard"
	"github.com/reinsdev/reins/tools/bash"
)

// groupGuard ends the Bash tool's and the hooks' process groups if this reins process dies
// without cleaning up (kill -9). Main sets it; in-process runs (tests) have none, as their executable is not
// reins.
var groupGuard *procguard.Guard

// runGuardIfAsked runs the watchdog when this process was started as one.
func runGuardIfAsked() (code int, ok bool) {
	if len(os.Args) == 2 && os.Args[1] == procguard.Arg {
		return procguard.Serve(os.Stdin), true
	}
	return 0, false
}

// shellGroups is the GroupGuard for bash.Options.
func shellGroups() bash.GroupGuard {
	if groupGuard == nil {
		return nil
	}
	return groupGuard
}

// hookGroups is the same watchdog as the GroupGuard for hooks.Runner.
func hookGroups() hooks.GroupGuard {
	if groupGuard == nil {
		return nil
	}
	return groupGuard
}
