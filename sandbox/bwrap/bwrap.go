// Package bwrap is the bubblewrap backend of the sandbox, the one Claude Code uses on Linux. A
// command runs in new mount, network, PID and IPC namespaces: the file system is mounted
// read-only but for the write roots, protected paths are mounted read-only again inside them,
// read-denied paths are covered, and the only network is loopback, where a re-exec of the reins
// binary (the bridge, see [BridgeMain]) forwards a port to the proxy's Unix socket.
package bwrap

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/reinsdev/reins/sandbox"
)

// Backend runs commands under bwrap.
type Backend struct {
	// Path is the bwrap binary; "" looks it up on PATH.
	Path string
}

// Name implements sandbox.Backend.
func (*Backend) Name() string { return "bubblewrap" }

func (b *Backend) bin() (string, error) {
	if b.Path != "" {
		return b.Path, nil
	}
	p, err := exec.LookPath("bwrap")
	if err != nil {
		return "", errors.New("bwrap is not installed (Debian/Ubuntu package bubblewrap)")
	}
	return p, nil
}

// Probe runs `true` in a sandbox like the real ones: it fails where bwrap is missing or the
// kernel refuses the namespaces (unprivileged user namespaces disabled, for one).
func (b *Backend) Probe(ctx context.Context, spec *sandbox.Spec) error {
	bin, err := b.bin()
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "/bin/true")
	cmd.Env = []string{}
	args, created, err := b.args(bin, spec, []string{"/bin/true"}, false)
	if err != nil {
		return err
	}
	cmd.Path, cmd.Args = bin, args
	out, err := cmd.CombinedOutput()
	removeMountPoints(created)
	if err != nil {
		return fmt.Errorf("bwrap cannot create a sandbox here: %v: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// Wrap implements sandbox.Backend.
func (b *Backend) Wrap(cmd *exec.Cmd, spec *sandbox.Spec) (func(), error) {
	bin, err := b.bin()
	if err != nil {
		return nil, err
	}
	inner := append([]string{cmd.Path}, cmd.Args[1:]...)
	args, created, err := b.args(bin, spec, inner, true)
	if err != nil {
		return nil, err
	}
	cmd.Path, cmd.Args = bin, args
	return func() { removeMountPoints(created) }, nil
}

// args builds bwrap's command line. With bridge, the command runs under the bridge, which
// forwards the proxy port into the sandbox. created lists the empty files bwrap will create as
// mount points for protected paths that do not exist, to remove afterwards.
func (b *Backend) args(bin string, spec *sandbox.Spec, inner []string, bridge bool) (args, created []string, err error) {
	// --cap-drop ALL: bwrap started by root otherwise leaves the command nearly every
	// capability, and CAP_SYS_ADMIN remounts / read-write.
	args = []string{bin, "--die-with-parent", "--cap-drop", "ALL", "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
		"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"}
	// Sockets of the host's daemons live in these folders; an empty tmpfs hides them (made
	// read-only at the end, so that writes there fail rather than vanish), and the listed
	// sockets are bound back below.
	var hidden []string
	for _, d := range []string{"/run", "/var/run", "/tmp"} {
		if fi, err := os.Lstat(d); err == nil && fi.IsDir() {
			args = append(args, "--tmpfs", d)
			hidden = append(hidden, d)
		}
	}
	for _, r := range spec.WriteRoots {
		if _, err := os.Stat(r); err != nil {
			continue
		}
		args = append(args, "--bind", r, r)
	}
	// The helper (the reins binary) may live in the hidden /tmp, as test binaries do.
	if spec.Helper != "" {
		args = append(args, "--ro-bind", spec.Helper, spec.Helper)
	}
	// The proxy's socket is outside the write roots and may be under the hidden /tmp; a socket
	// can be connected to through a read-only bind.
	if spec.ProxySocket != "" {
		args = append(args, "--ro-bind", spec.ProxySocket, spec.ProxySocket)
	}
	for _, v := range spec.Visible {
		if _, err := os.Stat(v); err == nil {
			args = append(args, "--ro-bind", v, v)
		}
	}
	for _, s := range spec.UnixSockets {
		if _, err := os.Stat(s); err == nil {
			args = append(args, "--bind", s, s)
		}
	}
	var protArgs []string
	protArgs, created = protect(spec)
	args = append(args, protArgs...)
	for _, p := range spec.ReadDeny {
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		if fi.IsDir() {
			args = append(args, "--tmpfs", p, "--remount-ro", p)
		} else {
			args = append(args, "--ro-bind", "/dev/null", p)
		}
	}
	for _, d := range hidden {
		args = append(args, "--remount-ro", d)
	}
	if bridge {
		args = append(args, "--", spec.Helper, BridgeArg, spec.ProxySocket, strconv.Itoa(spec.ProxyPort), "--")
	} else {
		args = append(args, "--")
	}
	return append(args, inner...), created, nil
}

// protect returns the mounts that keep the protected paths read-only, and the placeholder
// files bwrap will create for those that do not exist. A protected path's folders (such as
// .git) are bound over themselves first, shallowest first: a mount point cannot be renamed, so
// `mv .git x` cannot move the protection aside.
func protect(spec *sandbox.Spec) (args, created []string) {
	var pins []string
	for _, p := range append(append([]string{}, spec.WriteDeny...), spec.MustNotCreate...) {
		root := rootOf(spec, p)
		for d := filepath.Dir(p); root != "" && len(d) > len(root); d = filepath.Dir(d) {
			if !slices.Contains(pins, d) {
				pins = append(pins, d)
			}
		}
	}
	slices.SortFunc(pins, func(a, b string) int { return len(a) - len(b) })
	for _, d := range pins {
		if _, err := os.Stat(d); err == nil {
			args = append(args, "--bind", d, d)
		}
	}
	for _, p := range spec.WriteDeny {
		args = append(args, "--ro-bind", p, p)
	}
	for _, p := range spec.MustNotCreate {
		if _, err := os.Lstat(filepath.Dir(p)); err != nil {
			continue // its folder does not exist: the path is created with the folder, unprotected
		}
		if _, err := os.Lstat(p); err != nil {
			created = append(created, p)
		}
		args = append(args, "--ro-bind", "/dev/null", p)
	}
	return args, created
}

// rootOf returns the write root p lies in, or "".
func rootOf(spec *sandbox.Spec, p string) string {
	best := ""
	for _, r := range spec.WriteRoots {
		if (p == r || strings.HasPrefix(p, r+"/")) && len(r) > len(best) {
			best = r
		}
	}
	return best
}

// removeMountPoints removes the empty files bwrap created for protected paths that did not
// exist, leaving anything else alone.
func removeMountPoints(paths []string) {
	for _, p := range paths {
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() && fi.Size() == 0 {
			_ = os.Remove(p)
		}
	}
}

// Describe implements sandbox.Backend.
func (b *Backend) Describe(spec *sandbox.Spec) []string {
	lines := []string{
		"file system: everything mounted read-only; write roots bound read-write",
		"protected paths: bound read-only inside the write roots; their folders pinned so they cannot be renamed",
		"missing protected paths (" + strings.Join(spec.MustNotCreate, ", ") + "): /dev/null bound in their place for the command's lifetime",
		"read-denied paths: folders covered by an empty read-only tmpfs, files by /dev/null",
		"network: own network namespace (loopback only); port " + strconv.Itoa(spec.ProxyPort) + " inside forwards to the proxy",
		"unix sockets: /run, /var/run and /tmp are empty read-only tmpfs (the host's sockets and files there are hidden); abstract sockets are per network namespace; sockets elsewhere are not filtered",
		"processes: own PID, IPC and UTS namespaces, no capabilities (even when reins runs as root); the sandbox dies with reins",
	}
	if len(spec.UnixSockets) > 0 {
		lines = append(lines, "allowed unix sockets bound in: "+strings.Join(spec.UnixSockets, ", "))
	}
	if spec.LocalBinding {
		lines = append(lines, "local binding: allowed (only inside the sandbox's own network namespace)")
	}
	return lines
}
