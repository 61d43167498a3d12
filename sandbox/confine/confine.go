// Package confine is the part of the sandbox that runs inside it: the re-executions of the
// reins binary that the backends start in place of a command. Each restricts itself with the
// kernel and then executes the command, which inherits the restrictions and cannot lift them:
//
//   - [LandlockMain] (the Landlock backend) applies a Landlock ruleset, a seccomp filter on
//     sockets and an empty capability set to itself and executes the command;
//   - [BridgeMain] (the bubblewrap backend, inside bwrap's namespaces) opens a listening socket
//     on the proxy's port on the sandbox's own loopback, hands it to reins outside over an
//     inherited socket (reins accepts the command's connections on it and serves them with
//     the proxy), installs the socket filter and executes the command.
//
// The helpers are dispatched from this package's init, not from the CLI, and the package
// imports nothing but syscall, unsafe and errors: Go initialises a package as soon as its
// imports are, so the helpers run after 14 of the binary's packages have initialised instead
// of all 300 (telemetry, RPC, the terminal UI), which halves what each sandboxed command
// pays for the re-execution (bench/sandbox.sh). That is why this package speaks to the kernel
// with raw system calls and reads its rules from a plain NUL-separated format rather than
// through x/sys/unix, go-landlock or encoding/json. internal/archtest holds it to that.
package confine

import "errors"

// The first argument that makes the reins binary run a helper.
const (
	LandlockArg = "__sandbox-landlock"
	BridgeArg   = "__sandbox-bwrap-bridge"
)

// MinLandlockABI is the oldest Landlock ABI the Landlock backend accepts: 4 is the first that
// restricts TCP, and without it the sandbox would leave the network open.
const MinLandlockABI = 4

var errUsage = errors.New("usage: " + LandlockArg + " fd:N -- PATH ARGV0 [ARG]... | " + BridgeArg + " fd:N PORT unix|nounix -- PATH ARGV0 [ARG]")

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

// Rules is what [LandlockMain] restricts itself to; it arrives on an inherited pipe.
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

// rulesMagic opens the encoded rules, so that a stray pipe is not taken for them.
const rulesMagic = "reins-landlock-rules-1"

// Encode writes the rules as NUL-terminated fields: the magic, then "port", N, "bind",
// "unix" as they apply, then "grant", access, "d" or "f", path for each grant. Paths cannot
// hold a NUL.
func (r Rules) Encode() []byte {
	b := append([]byte(rulesMagic), 0)
	field := func(s string) { b = append(append(b, s...), 0) }
	field("port")
	field(itoa(r.ProxyPort))
	if r.LocalBinding {
		field("bind")
	}
	if r.UnixListed {
		field("unix")
	}
	for _, g := range r.Grants {
		field("grant")
		field(g.Access)
		if g.Dir {
			field("d")
		} else {
			field("f")
		}
		field(g.Path)
	}
	return b
}

// decodeRules reads what Encode wrote.
func decodeRules(b []byte) (Rules, error) {
	var r Rules
	fields := splitNUL(b)
	if len(fields) == 0 || fields[0] != rulesMagic {
		return r, errors.New("not a rules document")
	}
	for i := 1; i < len(fields); i++ {
		switch fields[i] {
		case "port":
			if i+1 >= len(fields) {
				return r, errors.New("port without a number")
			}
			n, ok := atoi(fields[i+1])
			if !ok {
				return r, errors.New("bad port " + fields[i+1])
			}
			r.ProxyPort, i = n, i+1
		case "bind":
			r.LocalBinding = true
		case "unix":
			r.UnixListed = true
		case "grant":
			if i+3 >= len(fields) {
				return r, errors.New("truncated grant")
			}
			r.Grants = append(r.Grants, Grant{Access: fields[i+1], Dir: fields[i+2] == "d", Path: fields[i+3]})
			i += 3
		default:
			return r, errors.New("unknown field " + fields[i])
		}
	}
	return r, nil
}

// splitNUL splits NUL-terminated fields (a last field without its NUL counts too).
func splitNUL(b []byte) []string {
	var out []string
	start := 0
	for i, c := range b {
		if c == 0 {
			out = append(out, string(b[start:i]))
			start = i + 1
		}
	}
	if start < len(b) {
		out = append(out, string(b[start:]))
	}
	return out
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

func atoi(s string) (int, bool) {
	if s == "" || len(s) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// fdArg parses "fd:N" for a descriptor the helper inherited (3 or above).
func fdArg(s string) (int, bool) {
	if len(s) < 4 || s[:3] != "fd:" {
		return 0, false
	}
	n, ok := atoi(s[3:])
	return n, ok && n >= 3
}
