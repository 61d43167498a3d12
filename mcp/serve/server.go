package serve

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/toolcall"
)

// Toolset is the tools of one connection and what they share.
type Toolset struct {
	Tools []tool.Tool
	// Cwd is the directory the connection's shell is in; nil or "" means the permission
	// context's own.
	Cwd func() string
	// Close ends what the tools started (background commands); nil when nothing needs it.
	Close func() error
}

// Options configure a [Server].
type Options struct {
	// Name and Version are the server's implementation info.
	Name, Version string
	// Permissions is the permission context every connection starts from: settings files,
	// flags and the configured working directories.
	Permissions *permission.Context
	// NewToolset builds the tools of one connection. perms returns the connection's current
	// permission context (tools read it, the shell needs it to judge read-only commands).
	NewToolset func(perms func() *permission.Context) Toolset
	// Logger receives the server's logs; nil discards them.
	Logger *slog.Logger
	// PolicyVersion is the signed policy bundle's version, which every connection's engine
	// stamps on its decisions ([permission.Engine.PolicyVersion]).
	PolicyVersion string
	// Record, when set, is told of every call that went through the pipeline, with the
	// connection's session id (the audit log); it must not block for long.
	Record func(session string, c toolcall.Call, out toolcall.Outcome)
	// Audit, when set, gives the auditor of an MCP session's calls: each decision is recorded
	// before its call runs, and a call whose decision cannot be recorded does not run.
	Audit func(session string) toolcall.Auditor
}

// protocolVersions are the versions the server speaks. From 2026-07-28 on, a server may not
// send its own requests (elicitation, roots) in the middle of a call, so the server stays with
// the versions where asking the client is a plain request.
var protocolVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// Server is Reins' MCP server. One Server serves any number of connections.
type Server struct {
	opts Options
	log  *slog.Logger
	mcp  *mcp.Server

	mu    sync.Mutex
	conns map[*mcp.ServerSession]*conn
}

// New builds a server and its tool list. The tool list is built once from a probe Toolset,
// which is closed again.
func New(ctx context.Context, opts Options) (*Server, error) {
	if opts.Permissions == nil || opts.NewToolset == nil {
		return nil, errors.New("serve.New: Permissions and NewToolset are required")
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{opts: opts, log: log, conns: map[*mcp.ServerSession]*conn{}}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: opts.Name, Title: "Reins", Version: opts.Version}, &mcp.ServerOptions{
		Instructions:              "Reins' built-in coding tools. Every call goes through Reins' permission engine: a call that is not allowed returns an error result saying why.",
		Logger:                    log,
		Capabilities:              &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
		SupportedProtocolVersions: protocolVersions,
		RootsListChangedHandler: func(_ context.Context, req *mcp.RootsListChangedRequest) {
			if c := s.existing(req.Session); c != nil {
				c.rootsChanged()
			}
		},
	})

	probe := opts.NewToolset(func() *permission.Context { return opts.Permissions })
	defer func() {
		if probe.Close != nil {
			probe.Close()
		}
	}()
	for _, t := range probe.Tools {
		if slices.Contains(conversationTools, t.Name()) {
			continue
		}
		mt, err := describe(ctx, t)
		if err != nil {
			return nil, err
		}
		s.mcp.AddTool(mt, s.handle)
	}
	return s, nil
}

// conversationTools steer the conversation with the agent's own user (questions, plan
// approval). Over MCP the client holds that conversation, so they are not served.
var conversationTools = []string{"AskUserQuestion", "EnterPlanMode", "ExitPlanMode"}

// describe is the MCP form of a tool: its prompt is the description, since an MCP client
// hands it to its model, and the short description is the title.
func describe(ctx context.Context, t tool.Tool) (*mcp.Tool, error) {
	prompt, err := t.Prompt(ctx)
	if err != nil {
		return nil, fmt.Errorf("prompt of %s: %w", t.Name(), err)
	}
	var schema map[string]any
	if err := json.Unmarshal(t.Spec().InputSchema, &schema); err != nil || schema["type"] != "object" {
		return nil, fmt.Errorf("input schema of %s is not a JSON object schema", t.Name())
	}
	a := Annotations(t)
	return &mcp.Tool{
		Name:        t.Name(),
		Title:       t.Spec().Description,
		Description: prompt,
		InputSchema: json.RawMessage(t.Spec().InputSchema),
		Annotations: &mcp.ToolAnnotations{
			Title:           t.Spec().Description,
			ReadOnlyHint:    a.ReadOnly,
			DestructiveHint: &a.Destructive,
			IdempotentHint:  a.Idempotent,
			OpenWorldHint:   &a.OpenWorld,
		},
	}, nil
}

// Hints are a tool's MCP annotations.
type Hints struct {
	ReadOnly, Destructive, Idempotent, OpenWorld bool
}

// programTools run whatever program their input names, so no input-independent hint can be
// claimed for them beyond the cautious one.
var programTools = []string{"Bash"}

// Annotations derives a tool's MCP hints from the tool contract, evaluated for the tool's
// sample input (the contract's flags depend on the input). Where the contract says nothing,
// the hint takes the cautious value: a tool that is not read-only may destroy (the contract's
// Destructive trait is narrower than MCP's "not only additive"), only a read-only tool is claimed
// idempotent, and a tool that runs arbitrary programs is open-world.
func Annotations(t tool.Tool) Hints {
	in := tool.SampleInput(t)
	if slices.Contains(programTools, t.Name()) {
		return Hints{Destructive: true, OpenWorld: true}
	}
	ro := t.Is(tool.ReadOnly, in)
	return Hints{
		ReadOnly:    ro,
		Destructive: !ro || t.Is(tool.Destructive, in),
		Idempotent:  ro,
		OpenWorld:   t.Is(tool.OpenWorld, in),
	}
}

// Serve serves one connection over r and w (stdio) until the client closes it or ctx ends.
func (s *Server) Serve(ctx context.Context, r io.ReadCloser, w io.WriteCloser) error {
	err := s.mcp.Run(ctx, &mcp.IOTransport{Reader: r, Writer: w})
	if errors.Is(err, io.EOF) || (err != nil && ctx.Err() != nil) {
		return nil
	}
	return err
}

// connect serves one connection over t and returns its session (tests use in-memory transports).
func (s *Server) connect(ctx context.Context, t mcp.Transport) (*mcp.ServerSession, error) {
	return s.mcp.Connect(ctx, t, nil)
}

// httpSessionIdle ends an HTTP session nobody used for this long, so a client that vanished
// without closing its session does not keep a shell and its background tasks alive.
const httpSessionIdle = time.Hour

// Handler is the streamable HTTP endpoint. Every request must carry
// "Authorization: Bearer <token>"; anything else is answered 401 before the MCP layer sees
// it. Cross-origin browser requests are refused, and the go-sdk handler adds DNS-rebinding
// protection for loopback addresses.
func (s *Server) Handler(token string) http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{Logger: s.log, SessionTimeout: httpSessionIdle})
	// Browsers cannot send the token cross-origin without the page knowing it; refusing
	// cross-origin browser requests outright is defence in depth.
	// A DELETE ends its session's calls first, once it passed the token and origin checks.
	deleting := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if id := r.Header.Get("Mcp-Session-Id"); r.Method == http.MethodDelete && id != "" {
			s.endSession(id)
		}
		h.ServeHTTP(w, r)
	})
	protected := http.NewCrossOriginProtection().Handler(deleting)
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(r.Header.Get("Authorization"))
		if token == "" || subtle.ConstantTimeCompare(got, want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="reins"`)
			http.Error(w, "401 Unauthorized: a bearer token is required (Authorization: Bearer <token>)", http.StatusUnauthorized)
			s.log.Warn("HTTP request without a valid bearer token", "remote", r.RemoteAddr, "method", r.Method)
			return
		}
		protected.ServeHTTP(w, r)
	})
}

// handle answers tools/call for every tool, in the calling connection's session.
func (s *Server) handle(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	c := s.connFor(req.Session)
	ctx, end := c.begin(ctx)
	defer end()
	return c.call(ctx, req), nil
}

// endSession cancels the calls of the session with this id before the go-sdk closes it. The
// go-sdk's close waits for the session's requests to finish, so without this a DELETE would
// wait for every running command to end by itself.
func (s *Server) endSession(id string) {
	s.mu.Lock()
	var c *conn
	for ss, sc := range s.conns {
		if ss.ID() == id {
			c = sc
		}
	}
	s.mu.Unlock()
	if c != nil {
		n := c.cancelCalls()
		s.log.Info("session deleted by the client", "session", id, "cancelled calls", n)
	}
}

// existing returns the session state of ss if it has one.
func (s *Server) existing(ss *mcp.ServerSession) *conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conns[ss]
}

// connFor returns the session state of ss, creating it on the first call. It ends (and its
// tools are closed) when the connection closes.
func (s *Server) connFor(ss *mcp.ServerSession) *conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.conns[ss]; ok {
		return c
	}
	c := newConn(s, ss)
	s.conns[ss] = c
	s.log.Info("session started", "session", ss.ID(), "client", clientName(ss))
	go func() {
		ss.Wait()
		s.mu.Lock()
		delete(s.conns, ss)
		s.mu.Unlock()
		c.close()
		s.log.Info("session ended", "session", ss.ID())
	}()
	return c
}

// sessions is the number of connections with session state, for tests.
func (s *Server) sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

func clientName(ss *mcp.ServerSession) string {
	if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil {
		return strings.TrimSpace(p.ClientInfo.Name + " " + p.ClientInfo.Version)
	}
	return ""
}
