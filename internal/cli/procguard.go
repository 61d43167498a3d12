package cli

import (
	"os"

	"github.com/reinsdev/reins/internal/procguard"
)

// runGuardIfAsked runs the watchdog when this process was started as one.
func runGuardIfAsked() (code int, ok bool) {
	if len(os.Args) == 2 && os.Args[1] == procguard.Arg {
		return procguard.Serve(os.Stdin), true
	}
	return 0, false
}
