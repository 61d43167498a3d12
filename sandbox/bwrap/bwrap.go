//go:build linux

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
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/reinsdev/reins/sandbox"
)

// Backend runs commands under bwrap.
type Backend struct {
	// Path is the bwrap binary; "" looks it up on PATH.
	Path string

	mu   sync.Mutex
	held map[string]*placeholder // by path
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
	args, release, err := b.args(bin, spec, []string{"/bin/true"}, false)
	if err != nil {
		return err
	}
	cmd.Path, cmd.Args = bin, args
	out, err := cmd.CombinedOutput()
	release()
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
	args, release, err := b.args(bin, spec, inner, true)
	if err != nil {
		return nil, err
	}
	cmd.Path, cmd.Args = bin, args
	if slices.ContainsFunc(spec.MustNotCreate, func(p string) bool { return filepath.Base(p) == ".git" }) {
		cmd.Env = withoutGoVCS(cmd.Env)
	}
	return release, nil
}

// args builds bwrap's command line. With bridge, the command runs under the bridge, which
// forwards the proxy port into the sandbox. release gives back the placeholders of protected
// paths that do not exist; call it once the command has ended.
func (b *Backend) args(bin string, spec *sandbox.Spec, inner []string, bridge bool) (args []string, release func(), err error) {
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
	protArgs, release, err := b.protect(spec)
	if err != nil {
		return nil, nil, err
	}
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
	return append(args, inner...), release, nil
}

// protect returns the mounts that keep the protected paths read-only, and the function that
// releases the placeholders they use. A protected path's folders (such as .git) are bound over
// themselves first, shallowest first: a mount point cannot be renamed, so `mv .git x` cannot
// move the protection aside. A missing protected path gets a placeholder (see [Backend.take])
// bound read-only over itself, so that creating the name fails inside the sandbox.
func (b *Backend) protect(spec *sandbox.Spec) (args []string, release func(), err error) {
	var pins []string
	for _, p := range slices.Concat(spec.WriteDeny, spec.MustNotCreate) {
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
	b.mu.Lock()
	defer b.mu.Unlock()
	var taken []string
	for _, p := range spec.WriteDeny {
		// Another command's placeholder counts as existing for a spec computed while it was
		// there; it must stay until this command is done with it too.
		if ph := b.held[p]; ph != nil {
			ph.refs++
			taken = append(taken, p)
		}
		args = append(args, "--ro-bind", p, p)
	}
	for _, p := range spec.MustNotCreate {
		ok, err := b.take(p, slices.Contains(spec.MissingDirs, p))
		if err != nil {
			b.releaseLocked(taken)
			return nil, nil, err
		}
		if ok {
			taken = append(taken, p)
		}
		if _, err := os.Lstat(p); err == nil {
			args = append(args, "--ro-bind", p, p)
		}
	}
	return args, func() { b.release(taken) }, nil
}

// placeholder is an empty file or folder the backend created on the host where a protected
// path was missing, shared by the commands running meanwhile.
type placeholder struct {
	refs     int
	dev, ino uint64
}

// take makes sure p has a placeholder, or something, to bind over, and reports whether the
// caller holds a placeholder to release. The placeholder is created here, not by bwrap, so
// that its inode is known: only that inode, still empty, is removed afterwards. It is an empty
// folder for folder names, not a device or file: git takes an empty .git folder for no
// repository and looks further up, while a .git that is not a folder is a broken repository.
// Names whose folder does not exist get none (their folder is missing or protected
// itself); the check after the command reports them if they appear. b.mu is held.
func (b *Backend) take(p string, dir bool) (bool, error) {
	if ph := b.held[p]; ph != nil {
		ph.refs++
		return true, nil
	}
	if _, err := os.Lstat(filepath.Dir(p)); err != nil {
		return false, nil
	}
	var err error
	if dir {
		err = os.Mkdir(p, 0o755)
	} else {
		var f *os.File
		if f, err = os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644); err == nil {
			err = f.Close()
		}
	}
	switch {
	case errors.Is(err, fs.ErrExist):
		return false, nil // it appeared meanwhile: it is bound read-only as it is
	case errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS):
		return false, nil // the user cannot create it here, so neither can the command
	case err != nil:
		return false, fmt.Errorf("protecting the missing %s: %w", p, err)
	}
	var st syscall.Stat_t
	if err := syscall.Lstat(p, &st); err != nil {
		return false, fmt.Errorf("protecting the missing %s: %w", p, err)
	}
	if b.held == nil {
		b.held = map[string]*placeholder{}
	}
	b.held[p] = &placeholder{refs: 1, dev: st.Dev, ino: st.Ino}
	return true, nil
}

// release drops one reference to each placeholder of paths; the last removes it from the host
// if it is still the empty file or folder take created. Something else there (the user wrote
// into the file meanwhile, or replaced it) is left alone.
func (b *Backend) release(paths []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.releaseLocked(paths)
}

func (b *Backend) releaseLocked(paths []string) {
	for _, p := range paths {
		ph := b.held[p]
		if ph == nil {
			continue
		}
		if ph.refs--; ph.refs > 0 {
			continue
		}
		delete(b.held, p)
		var st syscall.Stat_t
		if syscall.Lstat(p, &st) != nil || st.Dev != ph.dev || st.Ino != ph.ino {
			continue
		}
		switch st.Mode & syscall.S_IFMT {
		case syscall.S_IFDIR:
			_ = syscall.Rmdir(p) // fails unless empty
		case syscall.S_IFREG:
			if st.Size == 0 {
				_ = os.Remove(p)
			}
		}
	}
}

// Placeholder reports whether p is a placeholder a running command holds, so that the check
// after a command does not take it for something the command created. What the host wrote
// into it does not change that: inside the sandbox it is read-only.
func (b *Backend) Placeholder(p string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	ph := b.held[p]
	if ph == nil {
		return false
	}
	var st syscall.Stat_t
	return syscall.Lstat(p, &st) == nil && st.Dev == ph.dev && st.Ino == ph.ino
}

// withoutGoVCS adds -buildvcs=false to GOFLAGS in env (nil: the process's environment). The
// go command stamps a binary with the state of the repository whose .git it finds, and takes a
// placeholder .git folder for one: git then fails on it and so would every go build in a
// module without a repository. Without the placeholder there would be no repository to stamp.
func withoutGoVCS(env []string) []string {
	if env == nil {
		env = os.Environ()
	}
	out := make([]string, 0, len(env)+1)
	flags := "-buildvcs=false"
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "GOFLAGS="); ok {
			if strings.Contains(v, "-buildvcs") {
				flags = v
			} else if v != "" {
				flags = v + " " + flags
			}
			continue
		}
		out = append(out, e)
	}
	return append(out, "GOFLAGS="+flags)
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

// Describe implements sandbox.Backend.
func (b *Backend) Describe(spec *sandbox.Spec) []string {
	lines := []string{
		"file system: everything mounted read-only; write roots bound read-write",
		"protected paths: bound read-only inside the write roots; their folders pinned so they cannot be renamed",
		fmt.Sprintf("missing protected paths (%d): an empty placeholder (a folder for folder names) is created on the host and bound read-only for the command's lifetime, then removed if still empty; what appears anyway is reported after the command", len(spec.MustNotCreate)),
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
