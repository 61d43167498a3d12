package bash

import (
	"os/exec"
	"runtime"
	"sync"
	"syscall"
)

// spawner starts commands from one goroutine locked to its OS thread for the life of the
// process. The parent-death signal (Pdeathsig) fires when the thread that forked the child
// ends, not the process, and Go may end a thread when a goroutine locked to it returns; a
// thread that never ends makes the signal mean "reins died".
var spawner struct {
	once sync.Once
	reqs chan spawnReq
}

type spawnReq struct {
	cmd  *exec.Cmd
	done chan error
}

// startGuarded starts cmd with SIGKILL as its parent-death signal, so that the shell dies
// with reins even when reins is killed with SIGKILL; the shell's own children are the
// process guard's (see Options.Groups).
func startGuarded(cmd *exec.Cmd) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	spawner.once.Do(func() {
		spawner.reqs = make(chan spawnReq)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread lives as long as the process
			for r := range spawner.reqs {
				r.done <- r.cmd.Start()
			}
		}()
	})
	done := make(chan error, 1)
	spawner.reqs <- spawnReq{cmd: cmd, done: done}
	return <-done
}
