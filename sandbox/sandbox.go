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
	// Home is the user's home directory (its shell rc files are protected; bubblewrap keeps
	// it visible even where it lies in a folder it hides).
	Home string
	// TempDir is the session's temporary directory: writable, TMPDIR of commands, and /tmp
	// itself under bubblewrap. "" creates one under the system's temporary directory, removed
	// by Close.
	TempDir string
	// CacheDir holds the toolchains' caches of sandboxed commands (Go's build and module
	// caches, npm's, pip's, cargo's home, XDG_CACHE_HOME): writable, kept between sessions,
	// and never the host's own, which commands can read but not write (a poisoned build cache
	// would run outside the sandbox later). "" leaves commands the host's caches, read-only.
	CacheDir string
	// QuarantineDir is where the check after a command moves the protected paths the command
	// created or changed; it must lie outside every writable directory. "" means
	// Home/.reins/quarantine, or a folder in the system's temporary directory without Home.
	QuarantineDir string
	// OnStart, if set, is called once the sandbox has made what commands run with (see New).
	OnStart func()
	// ProbeCache, if set, is a file that records which backends worked here, so that a new
	// session does not start a trial command each time (see [New]).
	ProbeCache string
	// AllowWrite are more writable paths (sandbox.filesystem.allowWrite).
	AllowWrite []Path
	// DenyWrite are paths never writable (sandbox.filesystem.denyWrite), besides the
	// protected paths the sandbox adds itself.
	DenyWrite []Path
	// DenyRead are paths never readable: sandbox.filesystem.denyRead, the paths the Read
	// deny rules cover and the well-known credential stores.
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
	// Helper is the reins executable the backends re-execute (package sandbox/confine).
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
	// WriteDeny are the existing protected paths inside the write roots: a backend keeps
	// them read-only where it can; the check after the command restores them where it could
	// not. MustNotCreate are the protected paths that do not exist: no backend puts anything
	// in their place (a stand-in would be seen by git, ls and builds); the check after the
	// command moves what appears there to the quarantine.
	WriteDeny     []string `json:"writeDeny,omitempty"`
	MustNotCreate []string `json:"mustNotCreate,omitempty"`
	// UnixSockets are the socket paths a command may connect to.
	UnixSockets []string `json:"unixSockets,omitempty"`
	// LocalBinding lets a command listen on ports.
	LocalBinding bool `json:"localBinding,omitempty"`
	// ProxyPort is the proxy's port: on the host's 127.0.0.1 (Landlock), and the port
	// inside the sandbox whose connections [Spec.Proxy] serves (bubblewrap).
	ProxyPort int `json:"proxyPort"`
	// Helper is the reins executable to re-execute.
	Helper string `json:"helper"`
	// TempDir is the session's temporary directory (also among WriteRoots).
	TempDir string `json:"tempDir"`
	// Visible are paths that must be readable inside the sandbox even where the backend hides
	// their folder: the home folder and the caller's own files (the shell's start-up file).
	Visible []string `json:"visible,omitempty"`
	// Proxy serves a connection a command opened to the proxy port, for a backend whose
	// commands cannot reach the host's loopback.
	Proxy func(net.Conn) `json:"-"`

	// repos are the nested .git entries the spec protects; reposCut the working directories
	// whose search for them stopped at its bound.
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
	conns   *connListener
	port    int // the proxy's on the host's 127.0.0.1
	ownTemp bool
	rejects []string // backends that did not work, with why
	session string   // the quarantine's folder for this session

	// The session's temporary directory, caches, spec and proxy are made by start, at New
	// when a backend has to be tried, else at the first command (see New).
	once     sync.Once
	startErr error

	mu         sync.Mutex
	violations []Violation
	commands   int
	repos      []string             // nested .git entries the last search found
	reposCut   []string             // working directories where it stopped at its bound
	backups    map[string]*snapshot // the protected paths as they were, to restore
	// What tells changes between commands apart: the commands running, the process groups
	// of ended ones that still have members, the protected paths that were missing at the
	// last check and when it ended.
	running   int
	lingering []int
	// own are the protected files reins itself wrote (see Wrote), as they were then.
	own         map[string]fileID
	lastMissing []string
	lastCheck   int64
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
// that works. With no working backend it fails, naming each backend's reason. A backend is
// tried with a trivial confined command unless Config.ProbeCache records that it worked on
// this machine as it is now (the same backend program, kernel, user and reins binary).
func New(ctx context.Context, cfg Config) (*Sandbox, error) {
	s := &Sandbox{cfg: cfg, session: time.Now().Format("20060102-150405") + fmt.Sprintf("-%d", os.Getpid())}
	if cfg.Helper == "" {
		return nil, errors.New("sandbox: no helper executable configured")
	}
	// A backend the probe cache vouches for needs no trial command, so nothing needs making
	// until a command runs: a session that runs no Bash command builds no sandbox.
	if s.backend = s.cachedBackend(); s.backend != nil {
		return s, nil
	}
	if err := s.ready(); err != nil {
		return nil, err
	}
	s.pickBackend(ctx)
	if s.backend == nil {
		s.Close()
		reasons := s.rejects
		if len(reasons) == 0 {
			reasons = []string{"no backend is built in"}
		}
		return nil, fmt.Errorf("%w (%s); install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap) or use a kernel with Landlock, or set sandbox.enabled to false", ErrUnavailable, strings.Join(reasons, "; "))
	}
	return s, nil
}

// ready makes what commands run with, once; its error fails every command.
func (s *Sandbox) ready() error {
	s.once.Do(func() {
		if s.startErr = s.start(); s.startErr != nil {
			s.Close()
		}
	})
	return s.startErr
}

// start makes the session's temporary directory and caches, computes the spec and starts
// the proxy.
func (s *Sandbox) start() error {
	cfg := s.cfg
	if cfg.TempDir == "" {
		base := filepath.Join(os.TempDir(), fmt.Sprintf("reins-%d", os.Getuid()))
		if err := os.MkdirAll(base, 0o700); err != nil {
			return fmt.Errorf("sandbox: creating the temporary directory: %w", err)
		}
		dir, err := os.MkdirTemp(base, "sandbox-")
		if err != nil {
			return fmt.Errorf("sandbox: creating the temporary directory: %w", err)
		}
		s.cfg.TempDir, s.ownTemp = dir, true
	}
	s.cfg.TempDir = resolve(s.cfg.TempDir)
	if err := s.prepareCaches(); err != nil {
		return err
	}
	s.searchRepos()
	s.spec = s.buildSpec(nil, nil)
	if err := s.placeQuarantine(); err != nil {
		return err
	}
	if err := s.startProxy(); err != nil {
		return err
	}
	s.spec.ProxyPort, s.spec.Proxy = s.port, s.conns.deliver
	if s.cfg.OnStart != nil {
		s.cfg.OnStart()
	}
	return nil
}

// placeQuarantine picks the quarantine folder: the first of Config.QuarantineDir,
// ~/.reins/quarantine and a folder beside the sessions' temporary directories that lies
// outside every write root. The first two lie inside one when the home folder is a working
// directory (reins started in ~), where they would be writable to the commands whose leavings
// they keep.
func (s *Sandbox) placeQuarantine() error {
	var candidates []string
	if s.cfg.QuarantineDir != "" {
		candidates = append(candidates, s.cfg.QuarantineDir)
	}
	if s.cfg.Home != "" {
		candidates = append(candidates, filepath.Join(s.cfg.Home, ".reins", "quarantine"))
	}
	candidates = append(candidates, filepath.Join(os.TempDir(), fmt.Sprintf("reins-%d", os.Getuid()), "quarantine"))
	for _, q := range candidates {
		if !slices.ContainsFunc(s.spec.WriteRoots, func(r string) bool { return within(resolve(q), r) }) {
			s.cfg.QuarantineDir = q
			return nil
		}
	}
	return fmt.Errorf("sandbox: every quarantine folder (%s) lies inside a writable folder", strings.Join(candidates, ", "))
}

// cachedBackend is the first backend the probe cache records as working here, or nil.
func (s *Sandbox) cachedBackend() Backend {
	cache := loadProbeCache(s.cfg.ProbeCache)
	spec := Spec{Helper: s.cfg.Helper}
	for _, b := range s.cfg.Backends {
		if key := probeKey(b, &spec); key != "" && cache.worked(b.Name(), key) {
			return b
		}
	}
	return nil
}

// pickBackend sets s.backend to the first backend that works, recording why the others did
// not.
func (s *Sandbox) pickBackend(ctx context.Context) {
	cache := loadProbeCache(s.cfg.ProbeCache)
	for _, b := range s.cfg.Backends {
		key := probeKey(b, &s.spec)
		if key != "" && cache.worked(b.Name(), key) {
			s.backend = b
			return
		}
		err := b.Probe(ctx, &s.spec)
		if err == nil {
			s.backend = b
			if key != "" {
				cache.record(b.Name(), key)
			}
			return
		}
		s.rejects = append(s.rejects, fmt.Sprintf("%s: %v", b.Name(), err))
	}
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
	s.proxy, s.port = p, l.Addr().(*net.TCPAddr).Port
	s.conns = newConnListener()
	p.Serve(s.conns)
	return nil
}

// Backend is the name of the backend in use.
func (s *Sandbox) Backend() string { return s.backend.Name() }

// Spec returns the spec commands are confined to (the zero Spec if the sandbox could not
// start).
func (s *Sandbox) Spec() Spec {
	_ = s.ready()
	return s.spec
}

// TempDir is the session's temporary directory.
func (s *Sandbox) TempDir() string {
	_ = s.ready()
	return s.cfg.TempDir
}

// Close stops the proxy and removes the temporary directory the sandbox created.
func (s *Sandbox) Close() error {
	if s.proxy != nil {
		s.proxy.Close()
	}
	if s.ownTemp {
		return os.RemoveAll(s.cfg.TempDir)
	}
	return nil
}

// Wrap rewrites cmd to run confined: its program and arguments run under the backend, with
// the proxy variables pointing at the proxy, TMPDIR at the session's temporary directory and
// the toolchains' caches at the session's own (see [Config.CacheDir]). label names the
// command in violation reports. visible are files the command must be able to read (its
// shell's start-up file), writable files it may write (the file its shell reports its
// directory in); both are the caller's own bookkeeping, not the command's. Call finish with
// the command's output once it has ended: it runs the check after the command (which moves
// protected paths the command created to the quarantine and restores those it changed) and
// returns the violations to report, one line each.
//
// The spec is computed afresh for every command, so protected files created since the session
// started (a new .mcp.json) are protected too; it reads the top of each working directory and
// the repositories' hooks and config, never the whole tree.
func (s *Sandbox) Wrap(cmd *exec.Cmd, label string, visible, writable []string) (finish func(output string) []string, err error) {
	if err := s.ready(); err != nil {
		return nil, err
	}
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = withEnv(cmd.Env, s.commandEnv(cmd.Env))
	between, since := s.settleBetween()
	spec := s.buildSpec(visible, writable)
	g := s.guard(&spec)
	g.pre, g.start = between, min(g.start, since)
	cleanup, err := s.backend.Wrap(cmd, &spec)
	if err != nil {
		s.ended(nil, g)
		return nil, fmt.Errorf("sandbox (%s): %w", s.backend.Name(), err)
	}
	from := s.proxy.RefusedCount()
	return func(output string) []string {
		if cleanup != nil {
			cleanup()
		}
		defer s.ended(cmd, g)
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
		lines = append(lines, g.check()...)
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
