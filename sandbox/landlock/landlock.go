//go:build linux

// Package landlock is the Landlock backend of the sandbox: the kernel's own access-control
// rules, which need no external program. The reins binary re-executes itself as a helper
// (confine.LandlockMain) that restricts itself and then executes the command, which inherits
// the restrictions and cannot lift them.
//
// Landlock only grants, it never carves out: a rule on a folder covers everything beneath it.
// Write roots are therefore writable as a whole, protected names included: that a protected
// path ends up unchanged is the check after the command (package sandbox), which restores it
// and quarantines what the command made. Read-denied paths are carved out: a folder holding
// one gets no rule that grants reading, each of its other entries gets one, and the walk goes
// down into the folders on the way to the denied path ([Plan]). Inside a write root such a
// folder keeps every right but reading and executing, so entries can still be created,
// written and removed in it; new ones become readable with the next command's plan.
//
// Network rules go by TCP port: a command may connect only to the proxy's port on any address
// (the proxy listens on 127.0.0.1). The helper's seccomp filter refuses every other kind of
// socket (UDP, raw, packet, and Unix unless allowUnixSockets lists some), which Landlock
// before ABI 10 cannot; abstract Unix sockets and signals are scoped to the sandbox from ABI 6.
package landlock

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/reinsdev/reins/sandbox"
	"github.com/reinsdev/reins/sandbox/confine"
)

// HelperArg is the first argument that makes the reins binary run the Landlock helper.
const HelperArg = confine.LandlockArg

// MinABI is the oldest Landlock ABI the backend accepts: 4 is the first that restricts TCP,
// and without it the sandbox would leave the network open.
const MinABI = confine.MinLandlockABI

// ABI returns the kernel's Landlock ABI version, 0 when Landlock is unavailable, with why.
func ABI() (int, error) { return confine.LandlockABI() }

// Backend confines commands with Landlock.
type Backend struct{}

// Name implements sandbox.Backend.
func (*Backend) Name() string { return "landlock" }

// Access of a planned rule.
const (
	AccessRO       = confine.AccessRO
	AccessRW       = confine.AccessRW
	AccessListDir  = confine.AccessListDir
	AccessDev      = confine.AccessDev
	AccessSocket   = confine.AccessSocket
	AccessRWNoRead = confine.AccessRWNoRead
)

// Grant is one planned Landlock rule.
type Grant = confine.Grant

// maxGrants bounds the plan: a read-denied path deep in a huge folder would otherwise make
// thousands of rules. Past it the plan fails, and so does the command, rather than run looser.
const maxGrants = 20000

// devices every command needs to write or use as a terminal.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx", "/dev/pts"}

// Plan computes the Landlock rules for spec.
func Plan(spec *sandbox.Spec) ([]Grant, error) {
	p := &planner{}
	p.expand("/", spec.ReadDeny, AccessRO, AccessListDir)
	for _, r := range spec.WriteRoots {
		p.expand(r, spec.ReadDeny, AccessRW, AccessRWNoRead)
	}
	for _, d := range devices {
		if fi, err := os.Stat(d); err == nil {
			p.add(Grant{Path: d, Access: AccessDev, Dir: fi.IsDir()})
		}
	}
	for _, s := range spec.UnixSockets {
		if _, err := os.Stat(s); err == nil {
			p.add(Grant{Path: s, Access: AccessSocket})
		}
	}
	if p.err != nil {
		return nil, p.err
	}
	return p.grants, nil
}

type planner struct {
	grants []Grant
	err    error
}

func (p *planner) add(g Grant) {
	if len(p.grants) >= maxGrants {
		p.err = fmt.Errorf("the sandbox plan needs more than %d Landlock rules; name fewer or shallower deny paths", maxGrants)
		return
	}
	p.grants = append(p.grants, g)
}

// expand grants full access to path unless an excluded path lies in it; then it grants
// onPath (if any) to the folder itself and recurses into its entries.
func (p *planner) expand(path string, excluded []string, full, onPath string) {
	fi, err := os.Lstat(path)
	if err != nil {
		return
	}
	p.expandEntry(path, fi.Mode().Type(), excluded, full, onPath)
}

// expandEntry is expand for an entry whose type its folder's listing gave, so that the walk
// down to a denied path stats nothing.
func (p *planner) expandEntry(path string, typ os.FileMode, excluded []string, full, onPath string) {
	if p.err != nil || typ&os.ModeSymlink != 0 {
		// A rule on a symlink would apply to its target, wherever that is; the target gets
		// its own rule through its real path.
		return
	}
	inside := false
	for _, e := range excluded {
		if e == path {
			return
		}
		if strings.HasPrefix(e, path+"/") || path == "/" {
			inside = true
		}
	}
	if !inside {
		p.add(Grant{Path: path, Access: full, Dir: typ.IsDir()})
		return
	}
	if onPath != "" {
		p.add(Grant{Path: path, Access: onPath, Dir: true})
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return
	}
	for _, e := range entries {
		p.expandEntry(filepath.Join(path, e.Name()), e.Type(), excluded, full, onPath)
	}
}

// Probe implements sandbox.Backend: it checks the ABI, then runs `true` through the helper.
func (b *Backend) Probe(ctx context.Context, spec *sandbox.Spec) error {
	v, err := ABI()
	if err != nil {
		return fmt.Errorf("the kernel does not support Landlock: %v", err)
	}
	if v < MinABI {
		return fmt.Errorf("the kernel's Landlock ABI is %d; at least %d is needed to restrict the network", v, MinABI)
	}
	cmd := exec.CommandContext(ctx, "/bin/true")
	cleanup, err := b.Wrap(cmd, spec)
	if err != nil {
		return err
	}
	out, err := cmd.CombinedOutput()
	cleanup()
	if err != nil {
		return fmt.Errorf("the Landlock helper failed: %v: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// ProbeKey implements the sandbox's probe cache: what the probe's verdict depends on.
func (b *Backend) ProbeKey(spec *sandbox.Spec) string {
	v, err := ABI()
	if err != nil {
		return ""
	}
	var u unix.Utsname
	_ = unix.Uname(&u)
	return fmt.Sprintf("abi=%d kernel=%s uid=%d helper=%s", v, unix.ByteSliceToString(u.Release[:]), os.Geteuid(), sandbox.FileKey(spec.Helper))
}

// Wrap implements sandbox.Backend.
func (b *Backend) Wrap(cmd *exec.Cmd, spec *sandbox.Spec) (func(), error) {
	grants, err := Plan(spec)
	if err != nil {
		return nil, err
	}
	rules := confine.Rules{Grants: grants, ProxyPort: spec.ProxyPort, LocalBinding: spec.LocalBinding, UnixListed: len(spec.UnixSockets) > 0}.Encode()
	// The rules go through a pipe: as one argument they could pass the kernel's limit on an
	// argument's length (128 KiB), and a file would be one a sandboxed command could rewrite.
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.ExtraFiles = append(cmd.ExtraFiles, r)
	fd := 2 + len(cmd.ExtraFiles)
	go func() {
		_, _ = w.Write(rules)
		w.Close()
	}()
	args := append([]string{spec.Helper, HelperArg, "fd:" + strconv.Itoa(fd), "--", cmd.Path}, cmd.Args...)
	cmd.Path, cmd.Args = spec.Helper, args
	// Closing the parent's read end once the command has ended also ends a writer whose
	// reader never started.
	return func() { r.Close() }, nil
}

// Describe implements sandbox.Backend.
func (b *Backend) Describe(spec *sandbox.Spec) []string {
	v, _ := ABI()
	grants, err := Plan(spec)
	if err != nil {
		return []string{"plan: " + err.Error()}
	}
	count := map[string]int{}
	for _, g := range grants {
		count[g.Access]++
	}
	lines := []string{
		fmt.Sprintf("kernel Landlock ABI %d; %d rules (%d read-only, %d read-write, %d list-only folders, %d write-but-not-read folders, %d devices)",
			v, len(grants), count[AccessRO], count[AccessRW], count[AccessListDir], count[AccessRWNoRead], count[AccessDev]),
		"write roots: writable as a whole, protected names included (Landlock cannot carve names out of a writable folder); after each command the check restores changed protected paths and moves created ones to the quarantine",
		"read-denied paths: no read or execute right; a writable folder holding one keeps its other rights (entries created in it are writable, and readable from the next command on); a denied folder's names can be listed, not read",
	}
	if !slices.Contains(spec.WriteRoots, "/tmp") {
		lines = append(lines, "/tmp: read-only (a private /tmp needs a mount namespace); TMPDIR is the session's temporary folder")
	}
	lines = append(lines, "network: TCP connections only to port "+strconv.Itoa(spec.ProxyPort)+" (the proxy); NO_PROXY names loopback, which Landlock still refuses")
	if spec.LocalBinding {
		lines = append(lines, "local binding: allowed on any port, on the host's network")
	} else {
		lines = append(lines, "local binding: refused (a listener would be on the host's network, a way in)")
	}
	lines = append(lines, "capabilities: bounding, ambient and inheritable sets emptied and root's exec privileges locked off, so the command has none even as root")
	lines = append(lines, "seccomp: socket(2) only for TCP (IPv4, IPv6); UDP, raw, packet and other families refused; io_uring and foreign-ABI system calls refused")
	switch {
	case len(spec.UnixSockets) == 0:
		lines = append(lines, "Unix sockets: refused wherever they are (seccomp on socket(2); socketpair still works)")
	case v >= 9:
		lines = append(lines, "Unix sockets: connections only to allowUnixSockets (Landlock ABI 9+)")
	default:
		lines = append(lines, fmt.Sprintf("Unix sockets: allowed, to any path (allowUnixSockets is set, and Landlock ABI %d cannot limit them to the listed ones; ABI 9 can)", v))
	}
	if v >= 6 {
		lines = append(lines, "abstract Unix sockets and signals: scoped to the sandbox")
	}
	return lines
}
