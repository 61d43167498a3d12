//go:build !linux

package cli

import (
	"os/exec"
	"runtime"

	"github.com/reinsdev/reins/sandbox/seatbelt"
)

// backendWorks reports whether a sandbox backend can run here: Seatbelt's sandbox-exec on
// macOS, none elsewhere.
func backendWorks() bool {
	if runtime.GOOS != "darwin" {
		return false
	}
	_, err := exec.LookPath(seatbelt.DefaultPath)
	return err == nil
}
