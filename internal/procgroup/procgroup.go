//go:build unix

package procgroup

import (
	"syscall"
	"time"
)

// Kill ends process group pgid: SIGTERM, then SIGKILL for whatever is left after grace. It
// returns once the group is gone or a further grace has passed (a process stuck in the kernel
// cannot be waited for forever).
func Kill(pgid int, grace time.Duration) {
	if syscall.Kill(-pgid, syscall.SIGTERM) != nil {
		return
	}
	if WaitGone(pgid, grace) {
		return
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	WaitGone(pgid, grace)
}

// WaitGone polls until group pgid has no live member or d has passed, and reports which.
func WaitGone(pgid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for HasLiveMember(pgid) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}
