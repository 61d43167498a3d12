package procgroup

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// HasLiveMember reports whether process group pgid has a member that is not a zombie.
// kill(-pgid, 0) alone also counts zombies whose parent has not reaped them yet.
func HasLiveMember(pgid int) bool {
	if syscall.Kill(-pgid, 0) != nil {
		return false
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		state, pg, ok := procState(pid)
		if ok && pg == pgid && state != 'Z' && state != 'X' {
			return true
		}
	}
	return false
}

// procState reads a process's state letter and process group from /proc/<pid>/stat.
func procState(pid int) (state byte, pgrp int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	// The command name is in parentheses and may contain anything; fields follow the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 3 {
		return 0, 0, false
	}
	pg, err := strconv.Atoi(string(f[2]))
	if err != nil {
		return 0, 0, false
	}
	return f[0][0], pg, true
}

// Alive reports whether pid is a live process: it exists and is not a zombie.
func Alive(pid int) bool {
	state, _, ok := procState(pid)
	return ok && state != 'Z' && state != 'X'
}
