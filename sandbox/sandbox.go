package sandbox

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
	"time"

	"github.com/reinsdev/reins/sandbox/proxy"
)

// Path is a path of the policy with where it came from, for status reports.
type Path struct {
	Path   string `json:"path"`
	Origin string `json:"origin"`
}

// Config is what a session's sandbox is built from. Paths must be absolute.
type Config struct {
	// WorkingDirs are the session's working directories: writable.
	WorkingDirs []string
	// Home is the user's home directory (its shell rc files are protected).
	Home string
	// TempDir is the session's temporary directory: writable, and TMPDIR of commands. ""
	// creates one under the system's temporary directory, removed by Close.
	TempDir string
	// AllowWrite are more writable paths (sandbox.filesystem.allowWrite).
	AllowWrite []Path
	// DenyWrite are paths never writable (sandbox.filesystem.denyWrite), besides the
	// protected paths the sandbox adds itself.
	DenyWrite []Path
	// DenyRead are paths never readable: sandbox.filesystem.denyRead and the paths the Read
	// deny rules cover.
	DenyRead []Path
	// ProtectedDirs and ProtectedFiles are the names kept read-only in every writable
	// directory (permission.ProtectedNames); ProtectedPaths are exact paths (settings files).
	ProtectedDirs, ProtectedFiles []string
	ProtectedPaths                []string
	// AllowedDomains may be reached through the proxy ("*.example.com" for subdomains);
	// DeniedDomains never.
	AllowedDomains, DeniedDomains []string
	// AllowUnixSockets are socket paths a command may connect to.
	AllowUnixSockets []string
	// AllowLocalBinding lets commands listen on local ports.
	AllowLocalBinding bool
	// Helper is the reins executable the backends re-execute (see [HelperArg]).
	Helper string
	// Backends are tried in order; the first whose Probe succeeds is used.
	Backends []Backend
	// Dial, if set, is how the proxy reaches upstream hosts (tests point names at loopback).
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// AskHost, if set, is asked whether a command may reach a host that AllowedDomains does
	// not admit (and DeniedDomains does not refuse), while the proxy holds the connection
	// (bounded; see proxy.Proxy.Ask). Nil refuses those hosts.
	AskHost func(ctx context.Context, host string, port int) bool
}

// Spec is what a backend confines one command to. Every path is absolute and clean.
type Spec struct {
	// ReadDeny are paths that must not be readable.
	ReadDeny []string `json:"readDeny,omitempty"`
	// WriteRoots are the writable folders and files.
	WriteRoots []string `json:"writeRoots"`
	// WriteDeny are paths inside the write roots that must stay read-only; MustNotCreate
	// are those of them that do not exist and must not be created either; MissingDirs are
	// those of MustNotCreate that name folders (.git, .vscode, .git/hooks), for a backend
	// that puts a stand-in in their place.
	WriteDeny     []string `json:"writeDeny,omitempty"`
	MustNotCreate []string `json:"mustNotCreate,omitempty"`
	MissingDirs   []string `json:"missingDirs,omitempty"`
	// UnixSockets are the socket paths a command may connect to.
	UnixSockets []string `json:"unixSockets,omitempty"`
	// LocalBinding lets a command listen on ports.
	LocalBinding bool `json:"localBinding,omitempty"`
	// ProxyPort is the proxy's port on the host's 127.0.0.1; ProxySocket its Unix socket.
	ProxyPort   int    `json:"proxyPort"`
	ProxySocket string `json:"proxySocket"`
	// Helper is the reins executable to re-execute.
	Helper string `json:"helper"`
	// Visible are paths of the caller's (the shell's start-up file) that must be readable
	// inside the sandbox even where the backend hides their folder.
	Visible []string `json:"visible,omitempty"`

	// repos are the .git entries found below the working directories when the spec was
	// computed; reposCut the working directories whose search stopped at its bound. The
	// check after a command compares them with what is there then.
	repos, reposCut []string
}

// Backend enforces a Spec on commands.
type Backend interface {
	// Name is "bubblewrap" or "landlock".
	Name() string
	// Probe reports why the backend cannot confine commands here, nil when it can. It may
	// run a trivial confined command.
	Probe(ctx context.Context, spec *Spec) error
	// Wrap rewrites cmd, which runs a program with arguments, to run it confined by spec.
	// The returned cleanup runs after the command has ended.
	Wrap(cmd *exec.Cmd, spec *Spec) (cleanup func(), err error)
	// Describe says, one line each, how the backend enforces spec and what it cannot.
	Describe(spec *Spec) []string
}

// Sandbox is a session's sandbox. It is safe for concurrent use.
type Sandbox struct {
	cfg     Config
	spec    Spec
	backend Backend
	proxy   *proxy.Proxy
	ownTemp bool
	sockDir string
	rejects []string // backends that did not work, with why

	mu         sync.Mutex
	violations []Violation
}

// Violation is something the sandbox refused a command.
type Violation struct {
	Command string    `json:"command"`
	What    string    `json:"what"`
	At      time.Time `json:"at"`
}

// ErrUnavailable is wrapped by New's error when no backend works.
var ErrUnavailable = errors.New("the sandbox is enabled but no sandbox backend works on this machine")

// New builds the sandbox: it computes the spec, starts the proxy and picks the first backend
// that works. With no working backend it fails, naming each backend's reason.
func New(ctx context.Context, cfg Config) (*Sandbox, error) {
	s := &Sandbox{cfg: cfg}
	if cfg.Helper == "" {
		return nil, errors.New("sandbox: no helper executable configured")
	}
	if cfg.TempDir == "" {
		base := filepath.Join(os.TempDir(), fmt.Sprintf("reins-%d", os.Getuid()))
		if err := os.MkdirAll(base, 0o700); err != nil {
			return nil, fmt.Errorf("sandbox: creating the temporary directory: %w", err)
		}
		dir, err := os.MkdirTemp(base, "sandbox-")
		if err != nil {
			return nil, fmt.Errorf("sandbox: creating the temporary directory: %w", err)
		}
		s.cfg.TempDir, s.ownTemp = dir, true
	}
	if r, err := filepath.EvalSymlinks(s.cfg.TempDir); err == nil {
		s.cfg.TempDir = r
	}
	s.spec = buildSpec(s.cfg)
	if err := s.startProxy(); err != nil {
		s.Close()
		return nil, err
	}
	var reasons []string
	for _, b := range cfg.Backends {
		err := b.Probe(ctx, &s.spec)
		if err == nil {
			s.backend = b
			break
		}
		reasons = append(reasons, fmt.Sprintf("%s: %v", b.Name(), err))
	}
	s.rejects = reasons
	if s.backend == nil {
		s.Close()
		if len(reasons) == 0 {
			reasons = []string{"no backend is built in"}
		}
		return nil, fmt.Errorf("%w (%s); install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap) or use a kernel with Landlock, or set sandbox.enabled to false", ErrUnavailable, strings.Join(reasons, "; "))
	}
	return s, nil
}

func (s *Sandbox) startProxy() error {
	p := &proxy.Proxy{Allow: proxy.Matcher(s.cfg.AllowedDomains, s.cfg.DeniedDomains), Dial: s.cfg.Dial}
	if ask := s.cfg.AskHost; ask != nil {
		denied := proxy.Matcher(s.cfg.DeniedDomains, nil)
		p.Ask = func(ctx context.Context, host string, port int) bool { return !denied(host) && ask(ctx, host, port) }
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("sandbox: starting the proxy: %w", err)
	}
	p.Serve(l)
	s.proxy = p
	s.spec.ProxyPort = l.Addr().(*net.TCPAddr).Port
	// The socket lives in a folder of its own, outside every write root: a sandboxed command
	// must not be able to replace it with a socket of its own.
	dir, err := os.MkdirTemp(filepath.Dir(s.cfg.TempDir), "proxy-")
	if err != nil {
		return fmt.Errorf("sandbox: starting the proxy: %w", err)
	}
	s.sockDir = dir
	sock := filepath.Join(dir, "proxy.sock")
	ul, err := net.Listen("unix", sock)
	if err != nil {
		return fmt.Errorf("sandbox: starting the proxy: %w", err)
	}
	p.Serve(ul)
	s.spec.ProxySocket = sock
	return nil
}

// Backend is the name of the backend in use.
func (s *Sandbox) Backend() string { return s.backend.Name() }

// Spec returns the spec commands are confined to.
func (s *Sandbox) Spec() Spec { return s.spec }

// TempDir is the session's temporary directory.
func (s *Sandbox) TempDir() string { return s.cfg.TempDir }

// Close stops the proxy and removes the temporary directory the sandbox created.
func (s *Sandbox) Close() error {
	if s.proxy != nil {
		s.proxy.Close()
	}
	if s.sockDir != "" {
		os.RemoveAll(s.sockDir)
	}
	if s.ownTemp {
		return os.RemoveAll(s.cfg.TempDir)
	}
	return nil
}

// Wrap rewrites cmd to run confined: its program and arguments run under the backend, with
// TMPDIR set to the session's temporary directory and the proxy variables pointing at the
// proxy. label names the command in violation reports. visible are files the command must be
// able to read (its shell's start-up file), writable files it may write (the file its shell
// reports its directory in); both are the caller's own bookkeeping, not the command's. Call
// finish with the command's output once it has ended: it returns the violations to report, one
// line each.
//
// The spec is computed afresh for every command, so protected files created since the session
// started (a new .mcp.json) are protected too.
func (s *Sandbox) Wrap(cmd *exec.Cmd, label string, visible, writable []string) (finish func(output string) []string, err error) {
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = withEnv(cmd.Env, proxyEnv(s.spec.ProxyPort, s.cfg.TempDir))
	spec := buildSpec(s.cfg)
	spec.ProxyPort, spec.ProxySocket = s.spec.ProxyPort, s.spec.ProxySocket
	spec.Visible = append(spec.Visible, visible...)
	for _, w := range writable {
		spec.WriteRoots = append(spec.WriteRoots, filepath.Clean(w))
	}
	cleanup, err := s.backend.Wrap(cmd, &spec)
	if err != nil {
		return nil, fmt.Errorf("sandbox (%s): %w", s.backend.Name(), err)
	}
	from := s.proxy.RefusedCount()
	return func(output string) []string {
		if cleanup != nil {
			cleanup()
		}
		var lines []string
		seen := map[string]bool{}
		for _, r := range s.proxy.Refused(from) {
			key := r.Host + ":" + strconv.Itoa(r.Port)
			if seen[key] {
				continue
			}
			seen[key] = true
			lines = append(lines, fmt.Sprintf("network: connection to %s refused (not in sandbox.network.allowedDomains)", key))
		}
		lines = append(lines, fsViolations(output)...)
		lines = append(lines, s.createdProtected(&spec)...)
		s.record(label, lines)
		return lines
	}, nil
}

func (s *Sandbox) record(label string, lines []string) {
	if len(lines) == 0 {
		return
	}
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range lines {
		s.violations = append(s.violations, Violation{Command: label, What: l, At: now})
	}
}

// Violations lists what the sandbox refused this session, oldest first.
func (s *Sandbox) Violations() []Violation {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.violations)
}

// fsViolations picks the lines of a command's output that show the sandbox refusing a file
// operation. The kernel does not tell the parent, so the error messages are what there is.
func fsViolations(output string) []string {
	const maxLines = 5
	var out []string
	for _, l := range strings.Split(output, "\n") {
		if strings.Contains(l, "Read-only file system") || strings.Contains(l, "Permission denied") || strings.Contains(l, "Operation not permitted") {
			out = append(out, "file system: "+strings.TrimSpace(l))
			if len(out) == maxLines {
				break
			}
		}
	}
	return out
}

func proxyEnv(port int, tmp string) []string {
	http := "http://127.0.0.1:" + strconv.Itoa(port)
	socks := "socks5h://127.0.0.1:" + strconv.Itoa(port)
	return []string{
		"HTTP_PROXY=" + http, "HTTPS_PROXY=" + http, "http_proxy=" + http, "https_proxy=" + http,
		"ALL_PROXY=" + socks, "all_proxy=" + socks, "NO_PROXY=", "no_proxy=",
		"TMPDIR=" + tmp, "REINS_SANDBOX=1",
	}
}

// withEnv sets vars (NAME=value) in env, replacing earlier values.
func withEnv(env, vars []string) []string {
	names := map[string]bool{}
	for _, v := range vars {
		names[v[:strings.IndexByte(v, '=')]] = true
	}
	out := make([]string, 0, len(env)+len(vars))
	for _, e := range env {
		if i := strings.IndexByte(e, '='); i >= 0 && names[e[:i]] {
			continue
		}
		out = append(out, e)
	}
	return append(out, vars...)
}
