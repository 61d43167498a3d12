//go:build linux

package bwrap

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
)

// BridgeArg is the first argument that makes the reins binary run [BridgeMain].
const BridgeArg = "__sandbox-bwrap-bridge"

// BridgeMain runs inside the sandbox: args are the proxy's Unix socket, the port to listen on
// (on the sandbox's own loopback), "--" and the command. It forwards every connection to the
// port to the socket, runs the command and exits with its status. The command's connections
// thus reach the proxy, and nothing else outside the sandbox.
func BridgeMain(args []string) int {
	if len(args) < 4 || args[2] != "--" {
		fmt.Fprintln(os.Stderr, "reins: usage: "+BridgeArg+" SOCKET PORT -- COMMAND...")
		return 2
	}
	sock, port, argv := args[0], args[1], args[3:]
	l, err := net.Listen("tcp", "127.0.0.1:"+port)
	if err != nil {
		fmt.Fprintf(os.Stderr, "reins sandbox: cannot open the proxy bridge: %v\n", err)
		return 126
	}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go forward(c, sock)
		}
	}()
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
	err = cmd.Wait()
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

func forward(c net.Conn, sock string) {
	defer c.Close()
	up, err := net.Dial("unix", sock)
	if err != nil {
		return
	}
	defer up.Close()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(up, c); _ = up.(*net.UnixConn).CloseWrite(); done <- struct{}{} }()
	go func() { _, _ = io.Copy(c, up); _ = c.(*net.TCPConn).CloseWrite(); done <- struct{}{} }()
	<-done
	<-done
}
