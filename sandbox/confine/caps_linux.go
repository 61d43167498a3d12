package confine

import (
	"errors"
	"syscall"
	"unsafe"
)

// prctl options and capability constants (linux/prctl.h, linux/capability.h,
// linux/securebits.h).
const (
	prCapBSetDrop        = 24
	prSetSecurebits      = 28
	prSetNoNewPrivs      = 38
	prCapAmbient         = 47
	prCapAmbientClearAll = 4

	secbitNoRoot              = 1 << 0
	secbitNoRootLocked        = 1 << 1
	secbitNoSetuidFixup       = 1 << 2
	secbitNoSetuidFixupLocked = 1 << 3

	capabilityVersion3 = 0x20080522
)

func prctl(option, arg uintptr) error {
	if _, _, errno := syscall.RawSyscall6(syscall.SYS_PRCTL, option, arg, 0, 0, 0, 0); errno != 0 {
		return errno
	}
	return nil
}

type capHeader struct {
	version uint32
	pid     int32
}

type capData struct{ effective, permitted, inheritable uint32 }

// dropCapabilities empties the capability bounding set and the ambient set of the calling
// thread and locks root's special treatment off, so the program it then executes has no
// capabilities even as root. Landlock does not take capabilities away, and a root command
// with CAP_SYS_MODULE, CAP_MKNOD or CAP_NET_RAW would walk around every rule. Capabilities are
// per thread: the caller executes the command from this one.
func dropCapabilities() error {
	last := 63
	if b, err := readSmall("/proc/sys/kernel/cap_last_cap"); err == nil {
		if n, ok := atoi(string(trimSpace(b))); ok {
			last = n
		}
	}
	root := syscall.Geteuid() == 0
	for c := 0; c <= last; c++ {
		err := prctl(prCapBSetDrop, uintptr(c))
		if err != nil && err != syscall.EINVAL && (root || err != syscall.EPERM) {
			return errors.New("dropping capability " + itoa(c) + " from the bounding set: " + err.Error())
		}
	}
	if err := prctl(prCapAmbient, prCapAmbientClearAll); err != nil && err != syscall.EINVAL {
		return errors.New("clearing the ambient capabilities: " + err.Error())
	}
	if root {
		// Without these bits an execve by uid 0 regains the (now empty) bounding set; keep
		// them as belt and braces, locked so the command cannot undo them.
		if err := prctl(prSetSecurebits, secbitNoRoot|secbitNoRootLocked|secbitNoSetuidFixup|secbitNoSetuidFixupLocked); err != nil {
			return errors.New("setting the secure bits: " + err.Error())
		}
	}
	// The inheritable set would otherwise pass capabilities through the execve.
	hdr := capHeader{version: capabilityVersion3}
	var data [2]capData
	if _, _, errno := syscall.RawSyscall(syscall.SYS_CAPGET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0); errno != 0 {
		return errors.New("reading the capabilities: " + errno.Error())
	}
	data[0].inheritable, data[1].inheritable = 0, 0
	if _, _, errno := syscall.RawSyscall(syscall.SYS_CAPSET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0); errno != 0 {
		return errors.New("clearing the inheritable capabilities: " + errno.Error())
	}
	return nil
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == ' ') {
		b = b[:len(b)-1]
	}
	return b
}
