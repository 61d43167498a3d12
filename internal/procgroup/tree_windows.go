package procgroup

import (
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Windows has no process groups that a signal reaches: a "group" here is the tree of processes
// descended from the process pgid, found through a snapshot of every process's parent. A
// process whose parent exited still names the parent's id, so the tree stays whole while no
// new process reuses that id (Windows reuses ids, so at worst an unrelated process of the same
// user is counted or ended: docs/security.md has the row). There is no SIGTERM to give a
// grace: Kill terminates each member at once.

// stillActive is GetExitCodeProcess's answer for a running process (STILL_ACTIVE).
const stillActive = 259

// members returns pgid and every process descended from it.
func members(pgid int) []uint32 {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPPROCESS, 0)
	if err != nil {
		return []uint32{uint32(pgid)}
	}
	defer windows.CloseHandle(snap)
	children := map[uint32][]uint32{}
	var e windows.ProcessEntry32
	e.Size = uint32(unsafe.Sizeof(e))
	for err = windows.Process32First(snap, &e); err == nil; err = windows.Process32Next(snap, &e) {
		if e.ProcessID != e.ParentProcessID {
			children[e.ParentProcessID] = append(children[e.ParentProcessID], e.ProcessID)
		}
	}
	out := []uint32{uint32(pgid)}
	seen := map[uint32]bool{uint32(pgid): true}
	for i := 0; i < len(out); i++ {
		for _, c := range children[out[i]] {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		}
	}
	return out
}

// Alive reports whether process pid is running.
func Alive(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_INFORMATION, false, uint32(pid))
	if err != nil {
		// Access denied means it exists and is someone else's.
		return err == windows.ERROR_ACCESS_DENIED
	}
	defer windows.CloseHandle(h)
	var code uint32
	return windows.GetExitCodeProcess(h, &code) == nil && code == stillActive
}

// HasLiveMember reports whether the process tree of pgid has a running member.
func HasLiveMember(pgid int) bool {
	for _, pid := range members(pgid) {
		if Alive(int(pid)) {
			return true
		}
	}
	return false
}

// Kill terminates every member of the process tree of pgid and waits up to grace for them to
// be gone.
func Kill(pgid int, grace time.Duration) {
	for _, pid := range members(pgid) {
		h, err := windows.OpenProcess(windows.PROCESS_TERMINATE, false, pid)
		if err != nil {
			continue
		}
		_ = windows.TerminateProcess(h, 1)
		windows.CloseHandle(h)
	}
	WaitGone(pgid, grace)
}

// WaitGone waits up to d for the process tree of pgid to have no running member; it reports
// whether it has none.
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
