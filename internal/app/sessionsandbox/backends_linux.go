package sessionsandbox

import (
	"fmt"

	"github.com/reinsdev/reins/sandbox"
	"github.com/reinsdev/reins/sandbox/bwrap"
	"github.com/reinsdev/reins/sandbox/landlock"
)

// sandboxBackends are the backends to try, bubblewrap first (Claude Code's choice on Linux).
// REINS_SANDBOX_BACKEND=bubblewrap or landlock allows only that one.
func sandboxBackends(getenv func(string) string) ([]sandbox.Backend, error) {
	switch b := getenv("REINS_SANDBOX_BACKEND"); b {
	case "":
		return []sandbox.Backend{&bwrap.Backend{}, &landlock.Backend{}}, nil
	case "bubblewrap", "bwrap":
		return []sandbox.Backend{&bwrap.Backend{}}, nil
	case "landlock":
		return []sandbox.Backend{&landlock.Backend{}}, nil
	default:
		return nil, fmt.Errorf("REINS_SANDBOX_BACKEND=%q: want bubblewrap or landlock", b)
	}
}
