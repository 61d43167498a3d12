//go:build linux

// Package bwrap is the bubblewrap backend of the sandbox, the one Claude Code uses on Linux. A
// command runs in new user, mount, network, PID and IPC namespaces with no capabilities: the
// file system is mounted read-only but for the write roots, /tmp is the session's own folder,
// protected paths are mounted read-only again inside the write roots, read-denied paths are
// covered by empty ones nobody may open, and the only network is loopback. A re-exec of the
// reins binary (the bridge, confine.BridgeMain) listens on the proxy's port there, hands the
// listening socket to reins, which accepts the command's connections on it and serves them
// with the proxy, installs the seccomp filter that refuses Unix sockets and executes the
// command.
package bwrap

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/reinsdev/reins/sandbox"
	"github.com/reinsdev/reins/sandbox/confine"
)

// BridgeArg is the first argument that makes the reins binary run the bridge.
const BridgeArg = confine.BridgeArg

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

// Probe runs `true` in a sandbox like the real ones, bridge included: it fails where bwrap is
// missing or the kernel refuses the namespaces (unprivileged user namespaces disabled, for
// one).
func (b *Backend) Probe(ctx context.Context, spec *sandbox.Spec) error {
	cmd := exec.CommandContext(ctx, "/bin/true")
	cmd.Env = []string{}
	cleanup, err := b.Wrap(cmd, spec)
	if err != nil {
		return err
	}
	out, err := cmd.CombinedOutput()
	cleanup()
	if err != nil {
		return fmt.Errorf("bwrap cannot create a sandbox here: %v: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// KeepsExisting tells the sandbox that the existing protected paths need no copy (they are
// mounted read-only, and their folders pinned, for the command's lifetime) and that nothing
// of a command runs after it (its PID namespace ends with it).
func (*Backend) KeepsExisting() bool { return true }

// ProbeKey implements the sandbox's probe cache: what the probe's verdict depends on.
func (b *Backend) ProbeKey(spec *sandbox.Spec) string {
	bin, err := b.bin()
	if err != nil {
		return ""
	}
	var u unix.Utsname
	_ = unix.Uname(&u)
	key := []string{"bwrap=" + sandbox.FileKey(bin), "helper=" + sandbox.FileKey(spec.Helper),
		"kernel=" + unix.ByteSliceToString(u.Release[:]), "uid=" + strconv.Itoa(os.Geteuid())}
	for _, f := range []string{"/proc/sys/kernel/unprivileged_userns_clone", "/proc/sys/user/max_user_namespaces", "/proc/sys/kernel/apparmor_restrict_unprivileged_userns"} {
		v, _ := os.ReadFile(f)
		key = append(key, filepath.Base(f)+"="+strings.TrimSpace(string(v)))
	}
	return strings.Join(key, " ")
}

// Wrap implements sandbox.Backend.
func (b *Backend) Wrap(cmd *exec.Cmd, spec *sandbox.Spec) (func(), error) {
	bin, err := b.bin()
	if err != nil {
		return nil, err
	}
	w := &wrapping{spec: spec, base: 3 + len(cmd.ExtraFiles)}
	defer func() {
		if err != nil {
			w.close()
		}
	}()
	if err = w.handoff(); err != nil {
		return nil, err
	}
	inner := append([]string{cmd.Path}, cmd.Args...)
	args, err := w.args(bin, inner)
	if err != nil {
		return nil, err
	}
	cmd.Path, cmd.Args = bin, args
	cmd.ExtraFiles = append(cmd.ExtraFiles, w.files...)
	if w.privateTmp() {
		cmd.Env = setEnv(cmd.Env, "TMPDIR", "/tmp")
	}
	go w.receive()
	return w.close, nil
}

// wrapping is one command's set-up: the descriptors it passes to bwrap and the bridge.
type wrapping struct {
	spec  *sandbox.Spec
	base  int        // the descriptor number of files[0] in the command
	files []*os.File // passed to bwrap: the hand-off socket, then /dev/null for each mask
	ours  *net.UnixConn

	mu       sync.Mutex
	listener net.Listener // the bridge's, once handed over
	closed   bool
}

func (w *wrapping) fd(f *os.File) int { return w.base + slices.Index(w.files, f) }

// handoff makes the socket pair the bridge hands connections to the proxy over.
func (w *wrapping) handoff() error {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("the proxy hand-off socket: %w", err)
	}
	mine := os.NewFile(uintptr(fds[0]), "proxy-handoff")
	c, err := net.FileConn(mine)
	mine.Close()
	if err != nil {
		unix.Close(fds[1])
		return fmt.Errorf("the proxy hand-off socket: %w", err)
	}
	w.ours = c.(*net.UnixConn)
	w.files = append(w.files, os.NewFile(uintptr(fds[1]), "proxy-handoff"))
	return nil
}

// receive takes the listening socket the bridge opened on the proxy's port inside the
// sandbox and serves every connection to it until the command has ended.
func (w *wrapping) receive() {
	buf, oob := make([]byte, 1), make([]byte, unix.CmsgSpace(4))
	_, oobn, _, _, err := w.ours.ReadMsgUnix(buf, oob)
	if err != nil {
		return
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		for _, fd := range fds {
			unix.Close(fd)
		}
		return
	}
	f := os.NewFile(uintptr(fds[0]), "proxy-listener")
	l, err := net.FileListener(f)
	f.Close()
	if err != nil {
		return
	}
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		l.Close()
		return
	}
	w.listener = l
	w.mu.Unlock()
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		if w.spec.Proxy == nil {
			c.Close()
			continue
		}
		go w.spec.Proxy(c)
	}
}

func (w *wrapping) close() {
	w.mu.Lock()
	w.closed = true
	if w.listener != nil {
		w.listener.Close()
	}
	w.mu.Unlock()
	if w.ours != nil {
		w.ours.Close()
	}
	for _, f := range w.files {
		f.Close()
	}
}

// privateTmp reports whether /tmp inside is the session's temporary folder: unless the
// settings make the host's /tmp writable.
func (w *wrapping) privateTmp() bool {
	return w.spec.TempDir != "" && !slices.Contains(w.spec.WriteRoots, "/tmp")
}

// hidden are the folders covered by an empty tmpfs (made read-only at the end, so that writes
// there fail rather than vanish): the host's daemons keep their sockets and runtime files
// there. /tmp is replaced by the session's folder.
var hidden = []string{"/run", "/var/run"}

// args builds bwrap's command line; the command runs under the bridge.
func (w *wrapping) args(bin string, inner []string) ([]string, error) {
	spec := w.spec
	// --unshare-user with --cap-drop ALL empties every capability set, the bounding set too
	// (without the user namespace bwrap started by root leaves the bounding set full);
	// --disable-userns keeps the command from making a namespace of its own to gain some.
	args := []string{bin, "--die-with-parent", "--unshare-user", "--disable-userns", "--cap-drop", "ALL",
		"--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
		"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"}
	var covered []string
	for _, d := range hidden {
		if fi, err := os.Lstat(d); err == nil && fi.IsDir() {
			args = append(args, "--tmpfs", d)
			covered = append(covered, d)
		}
	}
	if w.privateTmp() {
		args = append(args, "--bind", spec.TempDir, "/tmp")
		covered = append(covered, "/tmp")
	}
	underCovered := func(p string) bool {
		return slices.ContainsFunc(covered, func(d string) bool { return p == d || strings.HasPrefix(p, d+"/") })
	}
	// Paths bound below the private /tmp need their folders there; those folders are covered by
	// empty read-only ones, so that the host's /tmp stays read-only like the rest: a write to
	// a project's parent in /tmp fails, as it does anywhere else, rather than land unseen in the
	// session's folder.
	var stubs []string
	if w.privateTmp() {
		bound := append(append(slices.Clone(spec.Visible), spec.Helper), spec.WriteRoots...)
		bound = append(bound, spec.UnixSockets...)
		for _, p := range bound {
			rel, ok := strings.CutPrefix(p, "/tmp/")
			if !ok || p == spec.TempDir || strings.HasPrefix(p, spec.TempDir+"/") {
				continue
			}
			top, _, deeper := strings.Cut(rel, "/")
			if stub := "/tmp/" + top; deeper && !slices.Contains(stubs, stub) && !slices.Contains(bound, stub) {
				stubs = append(stubs, stub)
				args = append(args, "--tmpfs", stub)
			}
		}
	}
	// What must stay visible though a folder above it is covered: the home folder, the
	// caller's files, the helper itself (test binaries live in /tmp).
	var shown []string
	for _, v := range append(slices.Clone(spec.Visible), spec.Helper) {
		if v != "" && underCovered(v) && exists(v) {
			args = append(args, "--ro-bind", v, v)
			shown = append(shown, v)
		}
	}
	for _, r := range spec.WriteRoots {
		if (r == spec.TempDir && w.privateTmp()) || !exists(r) {
			continue
		}
		args = append(args, "--bind", r, r)
		shown = append(shown, r)
	}
	inside := func(p string) bool {
		return !underCovered(p) || slices.ContainsFunc(shown, func(s string) bool { return p == s || strings.HasPrefix(p, s+"/") })
	}
	for _, s := range spec.UnixSockets {
		if exists(s) {
			args = append(args, "--bind", s, s)
		}
	}
	args = append(args, protect(spec)...)
	for _, p := range spec.ReadDeny {
		if inside(p) {
			args = append(args, w.mask(p)...)
		}
	}
	for _, d := range append(covered, stubs...) {
		if d != "/tmp" {
			args = append(args, "--remount-ro", d)
		}
	}
	unixSockets := "nounix"
	if len(spec.UnixSockets) > 0 {
		unixSockets = "unix"
	}
	args = append(args, "--", spec.Helper, BridgeArg, "fd:"+strconv.Itoa(w.fd(w.files[0])), strconv.Itoa(spec.ProxyPort), unixSockets, "--")
	return append(args, inner...), nil
}

// mask covers the read-denied p with an empty folder or file of mode 0000: opening it fails
// with "permission denied", as for any file the user may not read (the command has no
// capability that would override the mode), and it is a folder or regular file still, never a
// device git or a build would take for a changed file of another kind.
func (w *wrapping) mask(p string) []string {
	fi, err := os.Stat(p)
	if err != nil {
		return nil
	}
	if fi.IsDir() {
		return []string{"--perms", "0000", "--tmpfs", p, "--remount-ro", p}
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		return nil
	}
	w.files = append(w.files, null)
	return []string{"--perms", "0000", "--ro-bind-data", strconv.Itoa(w.fd(null)), p}
}

// protect returns the mounts that keep the existing protected paths read-only. A protected
// path's folders (such as .git) are bound over themselves first, shallowest first: a mount
// point cannot be renamed, so `mv .git x` cannot move the protection aside. Missing protected
// paths get nothing: a stand-in would be seen by the command's git and builds, and by the
// host; what the command creates there is moved to the quarantine after it.
func protect(spec *sandbox.Spec) []string {
	var pins, args []string
	for _, p := range spec.WriteDeny {
		root := rootOf(spec, p)
		for d := filepath.Dir(p); root != "" && len(d) > len(root); d = filepath.Dir(d) {
			if !slices.Contains(pins, d) {
				pins = append(pins, d)
			}
		}
	}
	slices.SortFunc(pins, func(a, b string) int { return len(a) - len(b) })
	for _, d := range pins {
		if isDir(d) {
			args = append(args, "--bind", d, d)
		}
	}
	for _, p := range spec.WriteDeny {
		if exists(p) {
			args = append(args, "--ro-bind", p, p)
		}
	}
	return args
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

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func isDir(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.IsDir()
}

// setEnv sets name to value in env (nil: the process's environment).
func setEnv(env []string, name, value string) []string {
	if env == nil {
		env = os.Environ()
	}
	out := slices.DeleteFunc(slices.Clone(env), func(e string) bool { return strings.HasPrefix(e, name+"=") })
	return append(out, name+"="+value)
}

// Describe implements sandbox.Backend.
func (b *Backend) Describe(spec *sandbox.Spec) []string {
	tmp := "/tmp: the session's own folder, mounted over the host's (writable, TMPDIR=/tmp)"
	if slices.Contains(spec.WriteRoots, "/tmp") {
		tmp = "/tmp: the host's, writable (allowWrite names it)"
	}
	lines := []string{
		"file system: everything mounted read-only; write roots bound read-write; /run and /var/run covered by empty read-only folders",
		tmp,
		"protected paths: bound read-only inside the write roots; their folders pinned so they cannot be renamed",
		"missing protected paths: nothing is put in their place; one a command creates is moved to the quarantine after it",
		"read-denied paths: covered by an empty folder or file of mode 0000 (opening it fails with permission denied; git cannot read a tracked file there and says so rather than stage it)",
		"network: own network namespace (loopback only, NO_PROXY names it); port " + strconv.Itoa(spec.ProxyPort) + " inside is the proxy (reins accepts on a socket the bridge opened there)",
		"processes: own user, PID, IPC and UTS namespaces, every capability set empty (even when reins runs as root), no new user namespaces; the sandbox dies with reins",
	}
	if len(spec.UnixSockets) == 0 {
		lines = append(lines, "unix sockets: refused wherever they are (seccomp on socket(2); socketpair still works); abstract sockets belong to the network namespace")
	} else {
		lines = append(lines, "unix sockets: allowed, to any socket the sandbox can see (allowUnixSockets is set, and seccomp cannot tell paths apart); the listed ones bound in: "+strings.Join(spec.UnixSockets, ", "))
	}
	if spec.LocalBinding {
		lines = append(lines, "local binding: allowed (only inside the sandbox's own network namespace)")
	} else {
		lines = append(lines, "local binding: on the sandbox's own loopback only")
	}
	return lines
}
