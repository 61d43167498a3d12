package cli

import (
	"os/exec"

	"github.com/reinsdev/reins/sandbox/landlock"
)

// backendWorks reports whether a sandbox backend can run here, so that a run's Bash command
// runs sandboxed (and builds the sandbox) by default.
func backendWorks() bool {
	if _, err := exec.LookPath("bwrap"); err == nil {
		return true
	}
	v, err := landlock.ABI()
	return err == nil && v >= landlock.MinABI
}
