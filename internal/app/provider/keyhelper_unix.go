//go:build unix

package provider

import (
	"os/exec"
	"syscall"
	"time"

	"github.com/reinsdev/reins/internal/procgroup"
)

// setKeyHelperGroup starts an apiKeyHelper in a process group of its own, so that its time
// limit ends whatever it started too.
func setKeyHelperGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// keyHelperGrace is how long what a helper left running has between SIGTERM and SIGKILL.
const keyHelperGrace = time.Second

// endKeyHelperGroup ends the helper's process group once the helper returned: SIGTERM, then
// SIGKILL after a grace, as the hooks' and the Bash tool's leftovers end. A group with no live
// member is left alone, so that a process group id given to someone else is never hit.
func endKeyHelperGroup(pgid int) {
	if procgroup.HasLiveMember(pgid) {
		procgroup.Kill(pgid, keyHelperGrace)
	}
}
