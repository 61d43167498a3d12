package confine

import (
	"errors"
	"syscall"
)

func init() {
	args := helperArgs()
	if len(args) < 2 {
		return
	}
	switch args[1] {
	case LandlockArg:
		syscall.Exit(LandlockMain(args[2:]))
	case BridgeArg:
		syscall.Exit(BridgeMain(args[2:]))
	}
}

// helperArgs returns the process's arguments when its first one names a helper, else at most
// the first two: package os, which holds them, initialises too late (see the package doc),
// so they are read from /proc/self/cmdline, whose head is all most starts need. Where that
// fails, the CLI's own dispatch runs the helper later.
func helperArgs() []string {
	fd, err := syscall.Open("/proc/self/cmdline", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer syscall.Close(fd)
	head := make([]byte, 4096)
	n := 0
	for n < len(head) {
		m, err := syscall.Read(fd, head[n:])
		if m <= 0 || err != nil {
			break
		}
		n += m
	}
	fields := splitNUL(head[:n])
	if len(fields) < 2 || (fields[1] != LandlockArg && fields[1] != BridgeArg) {
		return nil
	}
	rest, err := readAll(fd)
	if err != nil {
		return nil
	}
	return splitNUL(append(head[:n], rest...))
}

// fail writes the helper's error to standard error and returns status.
func fail(status int, msg string, err error) int {
	s := "reins sandbox: " + msg
	if err != nil {
		s += ": " + err.Error()
	}
	_, _ = syscall.Write(2, []byte(s+"\n"))
	return status
}

// command splits "-- PATH ARGV0 ARGS..." off args[at:].
func command(args []string, at int) (path string, argv []string, ok bool) {
	if len(args) < at+3 || args[at] != "--" {
		return "", nil, false
	}
	return args[at+1], args[at+2:], true
}

// LandlockMain restricts the process with the rules read from args[0] ("fd:N", a pipe) and
// executes PATH with ARGV (args[1] is "--"). It returns only on failure, with the exit status
// to use: the command never runs unconfined.
func LandlockMain(args []string) int {
	fd, ok := fdArg(first(args))
	path, argv, okCmd := command(args, 1)
	if !ok || !okCmd {
		return fail(2, errUsage.Error(), nil)
	}
	raw, err := readAll(fd)
	syscall.Close(fd)
	if err != nil {
		return fail(2, "reading the rules", err)
	}
	rules, err := decodeRules(raw)
	if err != nil {
		return fail(2, "bad helper rules", err)
	}
	// Landlock domains, seccomp filters and capabilities are per thread; during init the
	// main goroutine keeps to the main thread, which executes the command.
	if err := restrictLandlock(rules); err != nil {
		return fail(126, "cannot apply Landlock", err)
	}
	if err := installSocketFilter(true, rules.UnixListed); err != nil {
		return fail(126, "the socket filter", err)
	}
	if err := dropCapabilities(); err != nil {
		return fail(126, "dropping capabilities", err)
	}
	return execute(path, argv)
}

// BridgeMain runs inside bubblewrap's namespaces. args are "fd:N" (a Unix socket to reins
// outside), the proxy's port, "unix" or "nounix", and "-- PATH ARGV0 ARGS...". It listens on
// the port on the sandbox's own loopback, sends the listening socket to reins over fd N
// (reins accepts the command's connections on it and serves them with the proxy), installs
// the socket filter (Unix sockets only with "unix") and executes the command. The command's
// connections thus reach the proxy and nothing else outside the sandbox.
func BridgeMain(args []string) int {
	if len(args) < 3 {
		return fail(2, errUsage.Error(), nil)
	}
	out, okFD := fdArg(args[0])
	port, okPort := atoi(args[1])
	path, argv, okCmd := command(args, 3)
	if !okFD || !okPort || port == 0 || port >= 1<<16 || (args[2] != "unix" && args[2] != "nounix") || !okCmd {
		return fail(2, errUsage.Error(), nil)
	}
	if err := handOffListener(out, port); err != nil {
		return fail(126, "cannot open the proxy bridge", err)
	}
	if err := installSocketFilter(false, args[2] == "unix"); err != nil {
		return fail(126, "the socket filter", err)
	}
	return execute(path, argv)
}

// handOffListener listens on 127.0.0.1:port and sends the socket over out, then closes both.
func handOffListener(out, port int) error {
	defer syscall.Close(out)
	l, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(l)
	if err := syscall.SetsockoptInt(l, syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1); err != nil {
		return err
	}
	if err := syscall.Bind(l, &syscall.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		return err
	}
	if err := syscall.Listen(l, 128); err != nil {
		return err
	}
	return syscall.Sendmsg(out, []byte{0}, syscall.UnixRights(l), nil, 0)
}

// execute replaces the process with the command; it returns only if that fails.
func execute(path string, argv []string) int {
	err := syscall.Exec(path, argv, syscall.Environ())
	if errors.Is(err, syscall.ENOENT) {
		return fail(127, "exec "+path, err)
	}
	return fail(126, "exec "+path, err)
}

func first(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}

// readAll reads fd to its end (at most 64 MiB).
func readAll(fd int) ([]byte, error) {
	buf := make([]byte, 0, 64<<10)
	for {
		if len(buf) == cap(buf) {
			if len(buf) >= 64<<20 {
				return nil, errors.New("the rules are too large")
			}
			buf = append(buf, make([]byte, cap(buf))...)[:len(buf)]
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}

// readSmall reads a small file such as /proc/sys/kernel/cap_last_cap.
func readSmall(path string) ([]byte, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	var b [64]byte
	n, err := syscall.Read(fd, b[:])
	if err != nil {
		return nil, err
	}
	return b[:n], nil
}
