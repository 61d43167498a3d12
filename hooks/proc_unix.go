//go:build unix

package hooks

import (
	"os/exec"
	"syscall"

	"github.com/reinsdev/reins/internal/procgroup"
)

// setProcessGroup starts the hook in a process group of its own and makes cancellation kill the
// whole group.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// The hooks' groups are ended as the Bash tool's are.
var (
	groupAlive = procgroup.HasLiveMember
	killGroup  = procgroup.Kill
)
