package confine

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// dropCapabilities empties the capability bounding set and the ambient set of the calling
// thread and locks root's special treatment off, so the program it then executes has no
// capabilities even as root. Landlock does not take capabilities away, and a root command
// with CAP_SYS_MODULE, CAP_MKNOD or CAP_NET_RAW would walk around every rule. The caller
// must hold the thread locked until it executes the command: capabilities are per thread.
func dropCapabilities() error {
	last := 63
	if b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			last = n
		}
	}
	root := os.Geteuid() == 0
	for c := 0; c <= last; c++ {
		err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
		if err != nil && !errors.Is(err, unix.EINVAL) && (root || !errors.Is(err, unix.EPERM)) {
			return fmt.Errorf("dropping capability %d from the bounding set: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("clearing the ambient capabilities: %w", err)
	}
	if root {
		// Without these bits an execve by uid 0 regains the (now empty) bounding set; keep
		// them as belt and braces, locked so the command cannot undo them.
		if err := unix.Prctl(unix.PR_SET_SECUREBITS, secbitNoRoot|secbitNoRootLocked|secbitNoSetuidFixup|secbitNoSetuidFixupLocked, 0, 0, 0); err != nil {
			return fmt.Errorf("setting the secure bits: %w", err)
		}
	}
	// The inheritable set would otherwise pass capabilities through the execve.
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("reading the capabilities: %w", err)
	}
	data[0].Inheritable, data[1].Inheritable = 0, 0
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("clearing the inheritable capabilities: %w", err)
	}
	return nil
}

// securebits (linux/securebits.h).
const (
	secbitNoRoot              = 1 << 0
	secbitNoRootLocked        = 1 << 1
	secbitNoSetuidFixup       = 1 << 2
	secbitNoSetuidFixupLocked = 1 << 3
)
