// Package confine is the part of the sandbox that runs inside it: the re-executions of the
// reins binary that the backends start in place of a command. Each restricts itself with the
// kernel and then runs the command, which inherits the restrictions and cannot lift them:
//
//   - [LandlockMain] (the Landlock backend) applies a Landlock ruleset, a seccomp filter on
//     sockets and an empty capability set to itself and executes the command;
//   - [BridgeMain] (the bubblewrap backend, inside bwrap's namespaces) listens on the proxy's
//     port on the sandbox's own loopback, installs the socket filter and runs the command,
//     handing each connection to the proxy port to reins outside over an inherited socket.
//
// The helpers are dispatched from this package's init, not from the CLI: Go initialises a
// package as soon as its imports are, before the packages that sort after it, so a helper
// runs before the rest of reins (telemetry, RPC, terminal UI) has initialised — on this
// machine about 5 ms instead of 11 for each sandboxed command (bench/sandbox.sh). The package
// therefore imports only the standard library, x/sys/unix, x/net/bpf and go-landlock's system
// call package.
package confine

import (
	"errors"
	"os"
)

// The first argument that makes the reins binary run a helper.
const (
	LandlockArg = "__sandbox-landlock"
	BridgeArg   = "__sandbox-bwrap-bridge"
)

func init() {
	if len(os.Args) < 2 {
		return
	}
	switch os.Args[1] {
	case LandlockArg:
		os.Exit(LandlockMain(os.Args[2:]))
	case BridgeArg:
		os.Exit(BridgeMain(os.Args[2:]))
	}
}

// MinLandlockABI is the oldest Landlock ABI the Landlock backend accepts: 4 is the first that
// restricts TCP, and without it the sandbox would leave the network open.
const MinLandlockABI = 4

// ErrUsage is returned by the Landlock helper for a malformed command line.
var ErrUsage = errors.New("usage: " + LandlockArg + " fd:N -- COMMAND")

// Access of a planned Landlock rule.
const (
	AccessRO      = "ro"      // read and execute
	AccessRW      = "rw"      // read, execute, write, create, remove
	AccessListDir = "listdir" // list the folder (a folder on the way to a read-denied path)
	AccessDev     = "dev"     // read, write and ioctl of a device (/dev/null, terminals)
	AccessSocket  = "socket"  // connect to this Unix socket (ABI 9 on)
	// AccessRWNoRead is a writable folder on the way to a read-denied path: entries may be
	// created, written and removed in it, but reading and executing need a rule of their own
	// (which each existing entry but the denied one gets).
	AccessRWNoRead = "rw-noread"
)

// Grant is one planned Landlock rule.
type Grant struct {
	Path   string `json:"path"`
	Access string `json:"access"`
	Dir    bool   `json:"dir,omitempty"`
}

// Rules is what [LandlockMain] restricts itself to; it arrives as JSON on an inherited pipe.
type Rules struct {
	Grants []Grant `json:"grants"`
	// ProxyPort is the only TCP port a command may connect to.
	ProxyPort int `json:"proxyPort"`
	// LocalBinding leaves binding TCP ports unrestricted.
	LocalBinding bool `json:"localBinding,omitempty"`
	// UnixListed is set when allowUnixSockets names sockets: Unix sockets may then be created
	// (Landlock from ABI 9 limits which ones a command may connect to).
	UnixListed bool `json:"unixListed,omitempty"`
}
