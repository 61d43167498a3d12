package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinsdev/reins/tracecontext"
)

// Defaults of the timeouts and the output limit, as in Claude Code.
const (
	DefaultStartTimeout    = 30 * time.Second
	DefaultCallTimeout     = 100_000_000 * time.Millisecond
	DefaultMaxOutputTokens = 25_000
)

// Options configure the servers' sessions.
type Options struct {
	// Roots are the working directories declared to servers as roots.
	Roots []string
	// Dir is where stdio servers start.
	Dir string
	// Environ is the environment stdio servers inherit (before their own env); nil means the
	// process environment.
	Environ []string
	Getenv  func(string) string
	// StartTimeout bounds connecting and listing tools (MCP_TIMEOUT); CallTimeout bounds each
	// call (MCP_TOOL_TIMEOUT). Zero means the default.
	StartTimeout, CallTimeout time.Duration
	// MaxOutputTokens cuts long results (MAX_MCP_OUTPUT_TOKENS).
	MaxOutputTokens int
	// Elicitor answers servers' requests for input; nil declines them (headless).
	Elicitor Elicitor
	// Pins checks allow rules against the definitions they were granted for; nil pins nothing.
	Pins *Pins
	// Stderr receives stdio servers' standard error; nil discards it.
	Stderr io.Writer
}

// OptionsFromEnv returns Options with MCP_TIMEOUT, MCP_TOOL_TIMEOUT (milliseconds) and
// MAX_MCP_OUTPUT_TOKENS read through getenv; a value that is not a positive number is an error.
func OptionsFromEnv(getenv func(string) string) (Options, error) {
	var o Options
	ms := func(name string) (time.Duration, error) {
		v := getenv(name)
		if v == "" {
			return 0, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return 0, fmt.Errorf("%s=%q: want a positive number of milliseconds", name, v)
		}
		return time.Duration(n) * time.Millisecond, nil
	}
	var err error
	if o.StartTimeout, err = ms("MCP_TIMEOUT"); err != nil {
		return o, err
	}
	if o.CallTimeout, err = ms("MCP_TOOL_TIMEOUT"); err != nil {
		return o, err
	}
	if v := getenv("MAX_MCP_OUTPUT_TOKENS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return o, fmt.Errorf("MAX_MCP_OUTPUT_TOKENS=%q: want a positive number", v)
		}
		o.MaxOutputTokens = n
	}
	return o, nil
}

func (o Options) withDefaults() Options {
	if o.StartTimeout <= 0 {
		o.StartTimeout = DefaultStartTimeout
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = DefaultCallTimeout
	}
	if o.MaxOutputTokens <= 0 {
		o.MaxOutputTokens = DefaultMaxOutputTokens
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Environ == nil {
		o.Environ = os.Environ()
	}
	return o
}

// Manager holds the sessions of every started server.
type Manager struct {
	opts Options

	serversMu sync.Mutex // guards servers and sdkHost: AddSDK adds servers to a live session
	servers   []*server
	sdkHost   SDKHost

	rootsMu sync.Mutex // guards opts.Roots, which SetRoots changes while restarts read it
}

// list is the servers of the moment.
func (m *Manager) list() []*server {
	m.serversMu.Lock()
	defer m.serversMu.Unlock()
	return slices.Clone(m.servers)
}

func (m *Manager) roots() []string {
	m.rootsMu.Lock()
	defer m.rootsMu.Unlock()
	return slices.Clone(m.opts.Roots)
}

// Status is what `reins mcp` shows of one server.
type Status struct {
	Name  string `json:"name"`
	Scope Scope  `json:"scope"`
	Type  string `json:"type"`
	// State is connected, failed, or the Entry's state (needs approval, disabled, ...).
	State  string `json:"state"`
	Reason string `json:"reason,omitempty"`
	Tools  int    `json:"tools"`
	// Restarts counts restarts after a crash (at most one).
	Restarts int `json:"restarts,omitempty"`
	// Skipped lists tools left out of the pool and why (a schema that does not compile, a
	// name that cannot be made to fit).
	Skipped []string `json:"skipped,omitempty"`
	// Renamed lists tools whose pool name is not mcp__<server>__<tool>, and why.
	Renamed []string `json:"renamed,omitempty"`
}

// Server states beyond the Entry states.
const (
	StateConnected  = "connected"
	StateFailed     = "failed"
	StateRestarting = "restarting"
)

// Start connects to every ready entry in parallel and waits for all of them (each bounded by
// the start timeout). A server that fails is reported in Status and contributes no tools; it
// never fails the session.
func Start(ctx context.Context, entries []Entry, opts Options) *Manager {
	m := &Manager{opts: opts.withDefaults()}
	var wg sync.WaitGroup
	for _, e := range entries {
		s := &server{m: m, entry: e, name: e.Config.Name}
		m.servers = append(m.servers, s)
		if e.State != StateReady {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.start(ctx)
		}()
	}
	wg.Wait()
	return m
}

// Status reports every configured server, in name order.
func (m *Manager) Status() []Status {
	servers := m.list()
	out := make([]Status, 0, len(servers))
	names := m.poolNames()
	for _, s := range servers {
		st := s.status()
		for _, t := range sortedNames(names[s]) {
			switch p := names[s][t]; {
			case p.refused != "":
				st.Skipped = append(st.Skipped, fmt.Sprintf("%s: %s", t, p.refused))
				st.Tools--
			case p.note != "":
				st.Renamed = append(st.Renamed, p.note)
			}
		}
		out = append(out, st)
	}
	return out
}

// Close ends every session and kills what is left of stdio servers' process groups.
// The servers close at once, each as the MCP specification describes for stdio: its input
// closed, then SIGTERM to its process group after stdinGrace and SIGKILL after termGrace
// more (stdio.go); so an exit costs a few tens of milliseconds however many servers there
// are, and only a server's own exit time when it exits at end of input.
func (m *Manager) Close() error {
	servers := m.list()
	errs := make([]error, len(servers))
	var wg sync.WaitGroup
	for i, s := range servers {
		wg.Go(func() {
			if err := s.close(); err != nil {
				errs[i] = fmt.Errorf("closing MCP server %s: %w", s.name, err)
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// SetRoots changes the roots declared to every server (after /add-dir or --add-dir); servers
// are notified that the list changed.
func (m *Manager) SetRoots(dirs []string) {
	m.rootsMu.Lock()
	defer m.rootsMu.Unlock()
	old := m.opts.Roots
	m.opts.Roots = slices.Clone(dirs)
	for _, s := range m.list() {
		s.mu.Lock()
		c := s.client
		s.mu.Unlock()
		if c != nil {
			setRoots(c, old, dirs)
		}
	}
}

func rootsOf(dirs []string) []*mcp.Root {
	out := make([]*mcp.Root, 0, len(dirs))
	for _, d := range dirs {
		u := url.URL{Scheme: "file", Path: filepath.ToSlash(d)}
		out = append(out, &mcp.Root{URI: u.String(), Name: filepath.Base(d)})
	}
	return out
}

func setRoots(c *mcp.Client, old, dirs []string) {
	var uris []string
	for _, r := range rootsOf(old) {
		uris = append(uris, r.URI)
	}
	c.RemoveRoots(uris...)
	c.AddRoots(rootsOf(dirs)...)
}

// server is one configured server and its current session.
type server struct {
	m     *Manager
	name  string
	entry Entry

	mu        sync.Mutex
	client    *mcp.Client
	session   *mcp.ClientSession
	cmd       *exec.Cmd
	state     string
	reason    string
	tools     []*mcp.Tool
	skipped   []string
	resources bool // the server offers resources
	prompts   bool // the server offers prompts
	closing   bool
	restarted bool
	// restarting is open while the one restart after a crash runs; calls wait for it.
	restarting chan struct{}
	inflight   map[*callNotes]bool
	cancel     context.CancelFunc // ends the session's context
	stderr     *stderrTail        // a stdio server's last words
	sdk        *sdkConn           // an in-process server's connection
}

func (s *server) status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{Name: s.name, Scope: s.entry.Config.Scope, Type: s.entry.Config.TransportType(), State: string(s.entry.State), Reason: s.entry.Reason}
	if s.entry.State == StateReady {
		st.State, st.Reason = s.state, s.reason
		if s.state == StateConnected {
			st.Tools = len(s.tools)
		}
		st.Skipped = slices.Clone(s.skipped)
		if s.restarted {
			st.Restarts = 1
		}
	}
	return st
}

func (s *server) fail(reason string) {
	s.mu.Lock()
	s.state, s.reason = StateFailed, withStderr(reason, s.stderr)
	s.mu.Unlock()
}

// start connects and lists the tools, within the start timeout.
//
// The session's context outlives start (an SSE stream lives as long as it), so the timeout
// cancels it only while starting; Close cancels it for good.
func (s *server) start(ctx context.Context) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	timedOut := false
	var mu sync.Mutex
	timer := time.AfterFunc(s.m.opts.StartTimeout, func() {
		mu.Lock()
		timedOut = true
		mu.Unlock()
		cancel()
	})
	err := s.connect(ctx, cancel)
	timer.Stop()
	mu.Lock()
	late := timedOut
	mu.Unlock()
	if err == nil && late {
		err = errors.New("timed out")
		s.abandon()
	}
	if err != nil {
		cancel()
		if late {
			err = fmt.Errorf("no answer within %v (MCP_TIMEOUT)", s.m.opts.StartTimeout)
		}
		s.fail(err.Error())
	}
}

// abandon ends a session that connected too late. Unlike close it leaves closing alone: a
// Close of the Manager running at the same time must stay in force.
func (s *server) abandon() {
	s.mu.Lock()
	cs, cmd := s.session, s.cmd
	s.session, s.client, s.cmd, s.cancel = nil, nil, nil, nil
	s.mu.Unlock()
	if cs != nil {
		_ = cs.Close()
	}
	killGroup(cmd)
}

// connect starts a session. cancel ends its context; it is recorded with the session, so that
// watch, which may see the session end at once, always finds it.
func (s *server) connect(ctx context.Context, cancel context.CancelFunc) error {
	cfg, err := s.entry.Config.Expanded(s.m.opts.Getenv)
	if err != nil {
		return err
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "reins", Version: "0"}, &mcp.ClientOptions{
		ElicitationHandler: s.elicit,
		// A changed list is read at the next restart; the pin catches changed definitions.
		ToolListChangedHandler: func(ctx context.Context, _ *mcp.ToolListChangedRequest) { s.refreshTools(ctx) },
	})
	c.AddRoots(rootsOf(s.m.roots())...)
	var t mcp.Transport
	var cmd *exec.Cmd
	switch cfg.TransportType() {
	case TypeStdio:
		cmd = exec.Command(cfg.Command, cfg.Args...)
		cmd.Dir = s.m.opts.Dir
		cmd.Env = slices.Clone(s.m.opts.Environ)
		for _, k := range sortedNames(cfg.Env) {
			cmd.Env = append(cmd.Env, k+"="+cfg.Env[k])
		}
		// The span the server was started under (the session's start-up), so that a traced
		// server links its own spans to reins' trace; the configuration's env cannot set it.
		cmd.Env = tracecontext.Env(ctx, cmd.Env)
		tail := &stderrTail{w: s.m.opts.Stderr}
		cmd.Stderr = tail
		s.mu.Lock()
		s.stderr = tail
		s.mu.Unlock()
		// Its own process group, so that everything it starts dies with it.
		t = &stdioTransport{cmd: cmd}
	case TypeHTTP:
		t = &mcp.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: headerClient(cfg.Headers), MaxRetries: 1}
	case TypeSSE:
		t = &mcp.SSEClientTransport{Endpoint: cfg.URL, HTTPClient: headerClient(cfg.Headers)}
	case TypeSDK:
		t = &sdkTransport{s: s, host: s.m.host()}
	}
	cs, err := c.Connect(ctx, t, nil)
	if err != nil {
		killGroup(cmd)
		return fmt.Errorf("connecting: %w", err)
	}
	tools, skipped, err := listTools(ctx, cs)
	if err != nil {
		_ = cs.Close()
		killGroup(cmd)
		return fmt.Errorf("listing tools: %w", err)
	}
	res := cs.InitializeResult()
	s.mu.Lock()
	if s.closing {
		// Close ran while a restart was connecting.
		s.mu.Unlock()
		_ = cs.Close()
		killGroup(cmd)
		return errors.New("closed while starting")
	}
	s.client, s.session, s.cmd, s.cancel = c, cs, cmd, cancel
	s.state, s.reason = StateConnected, ""
	s.tools, s.skipped = tools, skipped
	s.resources = res != nil && res.Capabilities != nil && res.Capabilities.Resources != nil
	s.prompts = res != nil && res.Capabilities != nil && res.Capabilities.Prompts != nil
	s.mu.Unlock()
	go s.watch(cs)
	return nil
}

// listTools reads every tool, leaving out those whose input schema does not compile (their
// calls could not be validated).
func listTools(ctx context.Context, cs *mcp.ClientSession) (tools []*mcp.Tool, skipped []string, err error) {
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, nil, err
		}
		if _, err := compileSchema(t.InputSchema); err != nil {
			skipped = append(skipped, fmt.Sprintf("%s: invalid input schema: %v", t.Name, err))
			continue
		}
		tools = append(tools, t)
	}
	return tools, skipped, nil
}

func (s *server) refreshTools(ctx context.Context) {
	s.mu.Lock()
	cs := s.session
	s.mu.Unlock()
	if cs == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.m.opts.StartTimeout)
	defer cancel()
	tools, skipped, err := listTools(ctx, cs)
	if err != nil {
		return
	}
	s.mu.Lock()
	s.tools, s.skipped = tools, skipped
	s.mu.Unlock()
}

// watch notices a session that ends without Close: the server crashed. A stdio server is
// restarted once; after that its calls fail with the reason. Calls that arrive while the
// restart runs wait for it (current); only this goroutine, the dead session's only watcher,
// restarts, and only once.
func (s *server) watch(cs *mcp.ClientSession) {
	err := cs.Wait()
	s.mu.Lock()
	if s.closing || s.session != cs {
		s.mu.Unlock()
		return
	}
	cmd, cancel := s.cmd, s.cancel
	s.session, s.cancel = nil, nil
	s.state, s.reason = StateFailed, "the server closed the connection"
	if err != nil {
		s.reason += ": " + err.Error()
	}
	s.reason = withStderr(s.reason, s.stderr)
	restart := !s.restarted && s.entry.Config.TransportType() == TypeStdio
	s.restarted = true
	var done chan struct{}
	if restart {
		done = make(chan struct{})
		s.restarting, s.state = done, StateRestarting
	}
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	killGroup(cmd)
	if restart {
		s.start(context.Background())
		s.mu.Lock()
		s.restarting = nil
		s.mu.Unlock()
		close(done)
	}
}

// current returns the live session, or why there is none. While the server is being
// restarted it waits for the restart (bounded by ctx and the start timeout).
func (s *server) current(ctx context.Context) (*mcp.ClientSession, error) {
	s.mu.Lock()
	cs, wait := s.session, s.restarting
	s.mu.Unlock()
	if cs == nil && wait != nil {
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		s.mu.Lock()
		cs = s.session
		s.mu.Unlock()
	}
	if cs == nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		return nil, fmt.Errorf("MCP server %q is not connected: %s", s.name, s.reason)
	}
	return cs, nil
}

// definition returns the server's current definition of a tool.
func (s *server) definition(name string) *mcp.Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.tools {
		if t.Name == name {
			return t
		}
	}
	return nil
}

func (s *server) close() error {
	s.mu.Lock()
	s.closing = true
	cs, cmd, cancel := s.session, s.cmd, s.cancel
	s.session = nil
	s.mu.Unlock()
	if cancel != nil {
		defer cancel()
	}
	var err error
	if cs != nil {
		err = cs.Close()
	}
	killGroup(cmd)
	if err != nil && cmd != nil {
		// A stdio server we had to kill is not a failure of ours.
		return nil
	}
	return err
}

// headerClient adds the configured headers to every request.
func headerClient(h map[string]string) *http.Client {
	if len(h) == 0 {
		return nil
	}
	return &http.Client{Transport: headerTransport{h: h, base: http.DefaultTransport}}
}

type headerTransport struct {
	h    map[string]string
	base http.RoundTripper
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.h {
		r.Header.Set(k, v)
	}
	return t.base.RoundTrip(r)
}
