package confine

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// BridgeMain runs inside bubblewrap's namespaces. args are "fd:N" (a SOCK_SEQPACKET socket
// to reins outside), the proxy's port, "unix" or "nounix", "--" and the command. It listens
// on the port on the sandbox's own loopback, installs the socket filter (Unix sockets only
// with "unix"), runs the command and exits with its status; every connection to the port is
// handed, as a descriptor over fd N, to reins, which serves it with the proxy. The command's
// connections thus reach the proxy and nothing else outside the sandbox, and the bridge
// itself needs no Unix socket of its own.
func BridgeMain(args []string) int {
	if len(args) < 5 || args[3] != "--" || (args[2] != "unix" && args[2] != "nounix") {
		fmt.Fprintln(os.Stderr, "reins: usage: "+BridgeArg+" fd:N PORT unix|nounix -- COMMAND...")
		return 2
	}
	n, ok := strings.CutPrefix(args[0], "fd:")
	fd, err := strconv.Atoi(n)
	if !ok || err != nil || fd < 3 {
		fmt.Fprintln(os.Stderr, "reins: "+BridgeArg+": bad descriptor "+args[0])
		return 2
	}
	syscall.CloseOnExec(fd) // the command must not inherit it
	out, err := net.FileConn(os.NewFile(uintptr(fd), "proxy-handoff"))
	if err != nil {
		fmt.Fprintf(os.Stderr, "reins sandbox: the proxy hand-off socket: %v\n", err)
		return 126
	}
	handoff, ok := out.(*net.UnixConn)
	if !ok {
		fmt.Fprintln(os.Stderr, "reins sandbox: the proxy hand-off is not a Unix socket")
		return 126
	}
	l, err := net.Listen("tcp", "127.0.0.1:"+args[1])
	if err != nil {
		fmt.Fprintf(os.Stderr, "reins sandbox: cannot open the proxy bridge: %v\n", err)
		return 126
	}
	runtime.LockOSThread() // the command is forked from this thread, which holds the filter
	if err := installSocketFilter(false, args[2] == "unix"); err != nil {
		fmt.Fprintf(os.Stderr, "reins sandbox: %v\n", err)
		return 126
	}
	go handOff(l.(*net.TCPListener), handoff)
	return runChild(args[4:])
}

// handOff passes every accepted connection to reins as a descriptor.
func handOff(l *net.TCPListener, out *net.UnixConn) {
	for {
		c, err := l.AcceptTCP()
		if err != nil {
			return
		}
		f, err := c.File()
		c.Close()
		if err != nil {
			continue
		}
		_, _, err = out.WriteMsgUnix([]byte{0}, unix.UnixRights(int(f.Fd())), nil)
		f.Close()
		if err != nil {
			return
		}
	}
}

// runChild runs argv with the bridge's standard streams and returns its exit status as a
// shell reports it.
func runChild(argv []string) int {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "reins sandbox: %v\n", err)
		return 127
	}
	// Signals for the command's process group reach the command itself; the bridge stays to
	// report its status. (Ignored only after the start: an ignored signal would stay ignored
	// in the command.)
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	err := cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	}
	if err != nil {
		return 127
	}
	return 0
}
