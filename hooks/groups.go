package hooks

import "time"

// GroupGuard watches process groups on behalf of a process that may die without clean-up
// (internal/procguard implements it, as it does for the Bash tool). Errors are ignored: a
// group that cannot be guarded still runs, and [Runner.Close] still ends it.
type GroupGuard interface {
	Watch(pgid int) error
	Unwatch(pgid int) error
}

// killGrace is how long a hook's leftover processes have between SIGTERM and SIGKILL.
const killGrace = 2 * time.Second

// started puts a command hook's process group under the runner's guard.
func (r *Runner) started(pgid int) {
	if r.Groups != nil {
		_ = r.Groups.Watch(pgid)
	}
}

// finished decides about a command hook's group once its shell has exited. Processes the hook
// left running (`server &`) go on, as the Bash tool's do, but end with the session: the group
// stays watched, and Close ends it. After Close there is no session left to end with.
func (r *Runner) finished(pgid int) {
	live := groupAlive(pgid)
	r.groupsMu.Lock()
	closed := r.closed
	if live && !closed {
		if r.lingering == nil {
			r.lingering = map[int]bool{}
		}
		r.lingering[pgid] = true
	}
	r.groupsMu.Unlock()
	if live && !closed {
		return
	}
	if live {
		killGroup(pgid, killGrace)
	}
	r.unwatch(pgid)
}

func (r *Runner) unwatch(pgid int) {
	if r.Groups != nil {
		_ = r.Groups.Unwatch(pgid)
	}
}

// Close ends what command hooks left running (SIGTERM, then SIGKILL after a grace) and
// returns when it is gone; a hook that finishes later has its leftovers ended at once. Call
// it after the last hook, SessionEnd's, has run. If this process dies without calling it,
// the GroupGuard ends the groups.
func (r *Runner) Close() {
	if r == nil {
		return
	}
	r.groupsMu.Lock()
	r.closed = true
	groups := r.lingering
	r.lingering = nil
	r.groupsMu.Unlock()
	done := make(chan int, len(groups))
	for pgid := range groups {
		go func() {
			killGroup(pgid, killGrace)
			done <- pgid
		}()
	}
	for range groups {
		r.unwatch(<-done)
	}
}
