package confine

import "golang.org/x/sys/unix"

const (
	auditArch = unix.AUDIT_ARCH_X86_64
	// x32Bit marks the x32 ABI's system call numbers, refused like any foreign ABI.
	x32Bit = 0x40000000
)
