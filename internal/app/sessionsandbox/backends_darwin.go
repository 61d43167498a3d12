package sessionsandbox

import (
	"fmt"

	"github.com/reinsdev/reins/sandbox"
	"github.com/reinsdev/reins/sandbox/seatbelt"
)

// sandboxBackends on macOS is Seatbelt, Claude Code's choice there. REINS_SANDBOX_BACKEND
// may name it and nothing else.
func sandboxBackends(getenv func(string) string) ([]sandbox.Backend, error) {
	switch b := getenv("REINS_SANDBOX_BACKEND"); b {
	case "", "seatbelt":
		return []sandbox.Backend{&seatbelt.Backend{}}, nil
	default:
		return nil, fmt.Errorf("REINS_SANDBOX_BACKEND=%q: want seatbelt (bubblewrap and landlock are Linux's)", b)
	}
}
