//go:build linux

// Package landlock is the Landlock backend of the sandbox: the kernel's own access-control
// rules, which need no external program. The reins binary re-executes itself as a helper
// ([HelperMain]) that restricts itself with go-landlock and then executes the command, which
// inherits the restrictions and cannot lift them.
//
// Landlock only grants, it never carves out: a rule on a folder covers everything beneath it.
// So the rules are planned around the excluded paths: a folder holding a protected or
// read-denied path gets no rule itself, each of its other entries gets one, and the walk goes
// down into the folders on the way to the excluded path ([Plan]). One consequence: new entries
// cannot be created directly in such a folder (a working directory holds .git and the missing
// .claude, so a command cannot create files at the top of the project; it can inside its
// subfolders and can rewrite existing top-level files).
//
// Network rules go by TCP port: a command may connect only to the proxy's port on any address
// (the proxy listens on 127.0.0.1). A seccomp filter installed by the same helper refuses every
// other kind of socket (UDP, raw, packet, and Unix unless allowUnixSockets lists some), which
// Landlock before ABI 10 cannot; abstract Unix sockets and signals are scoped to the sandbox
// from ABI 6.
package landlock

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"

	"github.com/reinsdev/reins/sandbox"
)

// HelperArg is the first argument that makes the reins binary run [HelperMain].
const HelperArg = "__sandbox-landlock"

// MinABI is the oldest Landlock ABI the backend accepts: 4 is the first that restricts TCP,
// and without it the sandbox would leave the network open.
const MinABI = 4

// ABI returns the kernel's Landlock ABI version, 0 when Landlock is unavailable, with why.
func ABI() (int, error) {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil {
		return 0, err
	}
	return v, nil
}

// Backend confines commands with Landlock.
type Backend struct{}

// Name implements sandbox.Backend.
func (*Backend) Name() string { return "landlock" }

// Access of a planned rule.
const (
	AccessRO      = "ro"      // read and execute
	AccessRW      = "rw"      // read, execute, write, create, remove
	AccessListDir = "listdir" // list the folder (a folder on the way to a read-denied path)
	AccessDev     = "dev"     // read, write and ioctl of a device (/dev/null, terminals)
	AccessSocket  = "socket"  // connect to this Unix socket (ABI 9 on)
)

// Grant is one planned Landlock rule.
type Grant struct {
	Path   string `json:"path"`
	Access string `json:"access"`
	Dir    bool   `json:"dir,omitempty"`
}

// helperSpec is what the helper receives.
type helperSpec struct {
	Grants       []Grant `json:"grants"`
	ProxyPort    int     `json:"proxyPort"`
	LocalBinding bool    `json:"localBinding,omitempty"`
	// UnixListed is set when allowUnixSockets names sockets: Unix sockets may then be created
	// (Landlock from ABI 9 limits which ones a command may connect to).
	UnixListed bool `json:"unixListed,omitempty"`
}

// maxGrants bounds the plan: a read-denied path deep in a huge folder would otherwise make
// thousands of rules. Past it the plan fails, and so does the command, rather than run looser.
const maxGrants = 20000

// devices every command needs to write or use as a terminal.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx", "/dev/pts"}

// Plan computes the Landlock rules for spec.
func Plan(spec *sandbox.Spec) ([]Grant, error) {
	p := &planner{}
	p.expand("/", spec.ReadDeny, AccessRO, AccessListDir)
	excl := slices.Concat(spec.ReadDeny, spec.WriteDeny, spec.MustNotCreate)
	for _, r := range spec.WriteRoots {
		p.expand(r, excl, AccessRW, "")
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
	if p.err != nil {
		return
	}
	fi, err := os.Lstat(path)
	if err != nil {
		return
	}
	if fi.Mode()&os.ModeSymlink != 0 {
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
		p.add(Grant{Path: path, Access: full, Dir: fi.IsDir()})
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
		p.expand(filepath.Join(path, e.Name()), excluded, full, onPath)
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

// Wrap implements sandbox.Backend.
func (b *Backend) Wrap(cmd *exec.Cmd, spec *sandbox.Spec) (func(), error) {
	grants, err := Plan(spec)
	if err != nil {
		return nil, err
	}
	js, err := json.Marshal(helperSpec{Grants: grants, ProxyPort: spec.ProxyPort, LocalBinding: spec.LocalBinding, UnixListed: len(spec.UnixSockets) > 0})
	if err != nil {
		return nil, err
	}
	// The rules go through a pipe: as one argument they could pass the kernel's limit on an
	// argument's length (128 KiB), and a file would be one a sandboxed command could rewrite.
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.ExtraFiles = append(cmd.ExtraFiles, r)
	fd := 2 + len(cmd.ExtraFiles)
	go func() {
		_, _ = w.Write(js)
		w.Close()
	}()
	args := append([]string{spec.Helper, HelperArg, "fd:" + strconv.Itoa(fd), "--", cmd.Path}, cmd.Args[1:]...)
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
		fmt.Sprintf("kernel Landlock ABI %d; %d rules (%d read-only, %d read-write, %d list-only folders, %d devices)",
			v, len(grants), count[AccessRO], count[AccessRW], count[AccessListDir], count[AccessDev]),
		"write roots: writable except the protected and read-denied paths; a folder holding one of them allows no new entries directly in it",
		"network: TCP connections only to port " + strconv.Itoa(spec.ProxyPort) + " (the proxy)",
	}
	if spec.LocalBinding {
		lines = append(lines, "local binding: allowed on any port")
	} else {
		lines = append(lines, "local binding: refused")
	}
	lines = append(lines, "seccomp: socket(2) only for TCP (IPv4, IPv6); UDP, raw, packet and other families refused; io_uring and foreign-ABI system calls refused")
	switch {
	case len(spec.UnixSockets) == 0:
		lines = append(lines, "Unix sockets: refused (seccomp)")
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

// ErrUsage is returned by the helper for a malformed command line.
var ErrUsage = errors.New("usage: " + HelperArg + " fd:N -- COMMAND")
