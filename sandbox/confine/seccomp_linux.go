package confine

import (
	"errors"
	"syscall"
	"unsafe"
)

// The seccomp filter refuses the sockets a sandboxed command must not open, where the
// backend's other means do not: a Unix socket reaches a daemon wherever its socket file lies
// (a Docker or Podman socket in the home folder runs containers outside the sandbox), and
// under Landlock, whose network rules restrict TCP only (UDP from ABI 10, pathname Unix
// sockets from ABI 9), a raw, packet or UDP socket would leave the host. socket(2) for Unix
// sockets fails with EPERM unless allowUnixSockets names some; under Landlock (inetOnly)
// everything but TCP over IPv4 and IPv6 fails too, while bubblewrap's own network namespace
// already holds the other families to its loopback. socketpair(2), which pipes between a
// process and its children (libuv, Python) use, is a different system call and stays allowed.
// io_uring, which can create sockets without socket(2), is refused, and so is every system
// call of another architecture's ABI (on amd64 the i386 socketcall would otherwise pass).

// Classic BPF opcodes and seccomp's (linux/filter.h, linux/seccomp.h).
const (
	bpfLdWAbs = 0x20 // BPF_LD | BPF_W | BPF_ABS
	bpfJeqK   = 0x15 // BPF_JMP | BPF_JEQ | BPF_K
	bpfJgeK   = 0x35 // BPF_JMP | BPF_JGE | BPF_K
	bpfAndK   = 0x54 // BPF_ALU | BPF_AND | BPF_K
	bpfRetK   = 0x06 // BPF_RET | BPF_K

	seccompSetModeFilter = 1
	retAllow             = 0x7fff0000
	retEPERM             = 0x00050000 | 1 // SECCOMP_RET_ERRNO | EPERM

	// seccomp_data offsets.
	offNr   = 0
	offArch = 4
	offArg0 = 16
	offArg1 = 24
	offArg2 = 32

	afUnix     = 1
	afInet     = 2
	afInet6    = 10
	sockStream = 1
	ipprotoTCP = 6
	x32Bit     = 0x40000000 // amd64's x32 system call numbers, refused like any foreign ABI
)

type sockFilter struct {
	code   uint16
	jt, jf uint8
	k      uint32
}

type sockFprog struct {
	len    uint16
	filter *sockFilter
}

func stmt(code uint16, k uint32) sockFilter { return sockFilter{code: code, k: k} }

func jump(code uint16, k uint32, jt, jf uint8) sockFilter {
	return sockFilter{code: code, jt: jt, jf: jf, k: k}
}

// socketFilter builds the filter program: inetOnly is Landlock's variant (only TCP besides
// Unix), allowUnix lets Unix sockets be created. Each jump counts the instructions it skips.
func socketFilter(inetOnly, allowUnix bool) ([]sockFilter, error) {
	if auditArch == 0 {
		return nil, errors.New("no seccomp filter for this architecture")
	}
	unixVerdict := uint32(retEPERM)
	if allowUnix {
		unixVerdict = retAllow
	}
	prog := []sockFilter{
		/* 0 */ stmt(bpfLdWAbs, offArch),
		/* 1 */ jump(bpfJeqK, auditArch, 1, 0),
		/* 2 */ stmt(bpfRetK, retEPERM),
		/* 3 */ stmt(bpfLdWAbs, offNr),
		/* 4 */ jump(bpfJgeK, x32Bit, 0, 1),
		/* 5 */ stmt(bpfRetK, retEPERM),
		/* 6 */ jump(bpfJeqK, sysIoUringSetup, 0, 1),
		/* 7 */ stmt(bpfRetK, retEPERM),
		/* 8 */ jump(bpfJeqK, sysSocket, 1, 0),
		/* 9 */ stmt(bpfRetK, retAllow),
		/* 10 */ stmt(bpfLdWAbs, offArg0),
		/* 11 */ jump(bpfJeqK, afUnix, 0, 1),
		/* 12 */ stmt(bpfRetK, unixVerdict),
	}
	if !inetOnly {
		return append(prog, stmt(bpfRetK, retAllow)), nil
	}
	return append(prog,
		/* 13 */ jump(bpfJeqK, afInet, 2, 0),
		/* 14 */ jump(bpfJeqK, afInet6, 1, 0),
		/* 15 */ stmt(bpfRetK, retEPERM),
		/* 16 */ stmt(bpfLdWAbs, offArg1),
		/* 17 */ stmt(bpfAndK, 0xf), // drop SOCK_NONBLOCK and SOCK_CLOEXEC
		/* 18 */ jump(bpfJeqK, sockStream, 1, 0),
		/* 19 */ stmt(bpfRetK, retEPERM),
		/* 20 */ stmt(bpfLdWAbs, offArg2),
		/* 21 */ jump(bpfJeqK, 0, 2, 0),
		/* 22 */ jump(bpfJeqK, ipprotoTCP, 1, 0),
		/* 23 */ stmt(bpfRetK, retEPERM),
		/* 24 */ stmt(bpfRetK, retAllow),
	), nil
}

// installSocketFilter sets no_new_privs and loads the filter on the calling thread; it is
// inherited across execve.
func installSocketFilter(inetOnly, allowUnix bool) error {
	filter, err := socketFilter(inetOnly, allowUnix)
	if err != nil {
		return err
	}
	prog := sockFprog{len: uint16(len(filter)), filter: &filter[0]}
	if err := prctl(prSetNoNewPrivs, 1); err != nil {
		return errors.New("no_new_privs: " + err.Error())
	}
	if _, _, errno := syscall.Syscall(sysSeccomp, seccompSetModeFilter, 0, uintptr(unsafe.Pointer(&prog))); errno != 0 {
		return errors.New("seccomp: " + errno.Error())
	}
	return nil
}
