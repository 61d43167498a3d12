package confine

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
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

// seccomp_data offsets.
const (
	offNr   = 0
	offArch = 4
	offArg0 = 16
	offArg1 = 24
	offArg2 = 32
)

const (
	retAllow = unix.SECCOMP_RET_ALLOW
	retEPERM = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
)

// socketFilter builds the filter program: inetOnly is Landlock's variant (only TCP besides
// Unix), allowUnix lets Unix sockets be created.
func socketFilter(inetOnly, allowUnix bool) ([]bpf.RawInstruction, error) {
	if auditArch == 0 {
		return nil, errors.New("no seccomp filter for this architecture")
	}
	unixVerdict := uint32(retEPERM)
	if allowUnix {
		unixVerdict = retAllow
	}
	// Labels are resolved by hand: each jump counts the instructions it skips.
	prog := []bpf.Instruction{
		/* 0 */ bpf.LoadAbsolute{Off: offArch, Size: 4},
		/* 1 */ bpf.JumpIf{Cond: bpf.JumpEqual, Val: auditArch, SkipTrue: 1},
		/* 2 */ bpf.RetConstant{Val: retEPERM},
		/* 3 */ bpf.LoadAbsolute{Off: offNr, Size: 4},
		/* 4 */ bpf.JumpIf{Cond: bpf.JumpGreaterOrEqual, Val: x32Bit, SkipTrue: 0, SkipFalse: 1},
		/* 5 */ bpf.RetConstant{Val: retEPERM},
		/* 6 */ bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_IO_URING_SETUP, SkipFalse: 1},
		/* 7 */ bpf.RetConstant{Val: retEPERM},
		/* 8 */ bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_SOCKET, SkipTrue: 1},
		/* 9 */ bpf.RetConstant{Val: retAllow},
		/* 10 */ bpf.LoadAbsolute{Off: offArg0, Size: 4},
		/* 11 */ bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.AF_UNIX, SkipFalse: 1},
		/* 12 */ bpf.RetConstant{Val: unixVerdict},
	}
	if !inetOnly {
		return bpf.Assemble(append(prog, bpf.RetConstant{Val: retAllow}))
	}
	prog = append(prog,
		/* 13 */ bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.AF_INET, SkipTrue: 2},
		/* 14 */ bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.AF_INET6, SkipTrue: 1},
		/* 15 */ bpf.RetConstant{Val: retEPERM},
		/* 16 */ bpf.LoadAbsolute{Off: offArg1, Size: 4},
		/* 17 */ bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: 0xf}, // drop SOCK_NONBLOCK and SOCK_CLOEXEC
		/* 18 */ bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SOCK_STREAM, SkipTrue: 1},
		/* 19 */ bpf.RetConstant{Val: retEPERM},
		/* 20 */ bpf.LoadAbsolute{Off: offArg2, Size: 4},
		/* 21 */ bpf.JumpIf{Cond: bpf.JumpEqual, Val: 0, SkipTrue: 2},
		/* 22 */ bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.IPPROTO_TCP, SkipTrue: 1},
		/* 23 */ bpf.RetConstant{Val: retEPERM},
		/* 24 */ bpf.RetConstant{Val: retAllow},
	)
	return bpf.Assemble(prog)
}

// installSocketFilter sets no_new_privs and loads the filter on every thread of the process
// (TSYNC); it is inherited across fork and execve.
func installSocketFilter(inetOnly, allowUnix bool) error {
	raw, err := socketFilter(inetOnly, allowUnix)
	if err != nil {
		return err
	}
	filter := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		filter[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if _, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&prog))); errno != 0 {
		return fmt.Errorf("seccomp: %w", errno)
	}
	return nil
}
