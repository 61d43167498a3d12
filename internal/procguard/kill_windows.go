package procguard

import (
	"os/exec"
	"syscall"

	"github.com/reinsdev/reins/internal/procgroup"
)

// ownGroup starts the watchdog in a console process group of its own, which Ctrl-C in the
// terminal does not reach.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// KillGroups ends the process tree of each group (procgroup's Windows meaning of a group); there
// is no SIGTERM to give a grace.
func KillGroups(groups map[int]bool) {
	for pgid := range groups {
		procgroup.Kill(pgid, grace)
	}
}
