package confine

import "golang.org/x/sys/unix"

const (
	auditArch = unix.AUDIT_ARCH_AARCH64
	// x32Bit is amd64's; no arm64 system call number reaches it.
	x32Bit = 0x40000000
)
