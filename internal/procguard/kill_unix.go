//go:build unix

package procguard

import (
	"os/exec"
	"syscall"
	"time"
)

func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// KillGroups sends SIGTERM to each group, then SIGKILL to those still there after the grace.
func KillGroups(groups map[int]bool) {
	var left []int
	for pgid := range groups {
		if syscall.Kill(-pgid, syscall.SIGTERM) == nil {
			left = append(left, pgid)
		}
	}
	deadline := time.Now().Add(grace)
	for len(left) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		next := left[:0]
		for _, pgid := range left {
			if syscall.Kill(-pgid, 0) == nil {
				next = append(next, pgid)
			}
		}
		left = next
	}
	for _, pgid := range left {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
}
