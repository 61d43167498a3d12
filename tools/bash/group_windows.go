package bash

import (
	"os/exec"
	"syscall"

	"github.com/reinsdev/reins/internal/procgroup"
)

// ownGroup starts cmd in a new console process group; procgroup ends it as the tree of
// processes descended from it (Windows signals no group).
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// termGroup ends the process tree of pgid: Windows has no SIGTERM to give a grace, so it is
// terminated at once.
func termGroup(pgid int) error {
	procgroup.Kill(pgid, 0)
	return nil
}
