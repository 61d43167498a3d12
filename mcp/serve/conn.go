package serve

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/toolcall"
)

// conn is the session of one client connection.
type conn struct {
	srv    *Server
	ss     *mcp.ServerSession
	ts     Toolset
	tools  map[string]tool.Tool
	engine permission.Engine
	// files and values are the session state every call's Env shares.
	files  *tool.FileState
	values map[any]any

	// rootsMu serializes reading the client's roots, so that concurrent first calls ask once.
	rootsMu sync.Mutex

	mu sync.Mutex
	// base is the configured context, narrowed to the client's roots once they are known.
	base *permission.Context
	// updates are the session's own changes (session rules, mode), re-applied when the roots
	// change.
	updates []permission.Update
	pc      *permission.Context
	// rootsRead says the roots were read since the last change; rootsErr is why none fit.
	rootsRead bool
	rootsErr  error

	// calls cancels the calls running now, so that ending the session ends them; once ended
	// is set, a call that arrives is cancelled before it starts.
	callsMu sync.Mutex
	calls   map[*int]context.CancelFunc
	ended   bool
}

// begin registers a call; end must be called when it returns.
func (c *conn) begin(ctx context.Context) (_ context.Context, end func()) {
	ctx, cancel := context.WithCancel(ctx)
	key := new(int)
	c.callsMu.Lock()
	defer c.callsMu.Unlock()
	if c.ended {
		cancel()
		return ctx, func() {}
	}
	if c.calls == nil {
		c.calls = map[*int]context.CancelFunc{}
	}
	c.calls[key] = cancel
	return ctx, func() {
		c.callsMu.Lock()
		delete(c.calls, key)
		c.callsMu.Unlock()
		cancel()
	}
}

// cancelCalls cancels every running call (its tool sees the context end: Bash kills the
// command's process group) and every later one, and says how many ran.
func (c *conn) cancelCalls() int {
	c.callsMu.Lock()
	defer c.callsMu.Unlock()
	c.ended = true
	for _, cancel := range c.calls {
		cancel()
	}
	return len(c.calls)
}

func newConn(s *Server, ss *mcp.ServerSession) *conn {
	c := &conn{srv: s, ss: ss, base: s.opts.Permissions, pc: s.opts.Permissions, files: tool.NewFileState(), values: map[any]any{}}
	c.engine.PolicyVersion = s.opts.PolicyVersion
	c.ts = s.opts.NewToolset(c.current)
	c.tools = map[string]tool.Tool{}
	for _, t := range c.ts.Tools {
		c.tools[t.Name()] = t
	}
	return c
}

func (c *conn) close() {
	if c.ts.Close != nil {
		if err := c.ts.Close(); err != nil {
			c.srv.log.Warn("closing the session's tools", "session", c.ss.ID(), "error", err)
		}
	}
}

// current is the session's permission context.
func (c *conn) current() *permission.Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pc
}

// update applies session changes (plan mode, "allow for this session"). Updates aimed at a
// settings file are kept in memory: a client's answer never writes the user's settings.
func (c *conn) update(_ context.Context, updates ...permission.Update) error {
	mem := make([]permission.Update, len(updates))
	for i, u := range updates {
		if u.Destination.Persisted() {
			u.Destination = permission.SourceSession
		}
		mem[i] = u
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	next, err := c.pc.Apply(mem...)
	if err != nil {
		return err
	}
	c.pc = next
	c.updates = append(c.updates, mem...)
	return nil
}

func (c *conn) rootsChanged() {
	c.mu.Lock()
	c.rootsRead = false
	c.mu.Unlock()
}

// declaresRoots reports whether the client said it has roots.
func (c *conn) declaresRoots() bool {
	p := c.ss.InitializeParams()
	return p != nil && p.Capabilities != nil && p.Capabilities.RootsV2 != nil
}

// permissions is the context a call is decided in, after reading the client's roots if they
// are due. An error means the call must not run.
func (c *conn) permissions(ctx context.Context) (*permission.Context, error) {
	c.rootsMu.Lock()
	defer c.rootsMu.Unlock()
	c.mu.Lock()
	read := c.rootsRead
	c.mu.Unlock()
	if !read && c.declaresRoots() {
		if err := c.readRoots(ctx); err != nil {
			return nil, err
		}
	}
	c.mu.Lock()
	pc, rootsErr := c.pc, c.rootsErr
	c.mu.Unlock()
	if rootsErr != nil {
		return nil, rootsErr
	}
	return c.atShellCwd(pc), nil
}

// atShellCwd is pc with relative paths resolving where the session's shell is, as the agent
// does: the decision and the call must see the same paths. The shell is asked outside c.mu,
// since it may itself read the session's context.
func (c *conn) atShellCwd(pc *permission.Context) *permission.Context {
	if c.ts.Cwd != nil {
		if d := c.ts.Cwd(); d != "" && d != pc.Cwd() {
			return pc.WithCwd(d)
		}
	}
	return pc
}

// callPermissions is the current context at the shell's directory, for tools during a call.
func (c *conn) callPermissions() *permission.Context { return c.atShellCwd(c.current()) }

// readRoots lists the client's roots and narrows the session's working directories to them.
func (c *conn) readRoots(ctx context.Context) error {
	lctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	res, err := c.ss.ListRoots(lctx, nil)
	if err != nil {
		// The client promised roots and did not give them: running with the configured
		// directories could reach further than the client meant.
		return fmt.Errorf("reading the client's roots: %w", err)
	}
	var dirs, refused []string
	for _, r := range res.Roots {
		if d, ok := rootPath(r.URI); ok {
			dirs = append(dirs, d)
		} else {
			refused = append(refused, r.URI)
		}
	}
	base := c.srv.opts.Permissions
	var rootsErr error
	if len(dirs) > 0 || len(refused) > 0 {
		var out []string
		var nb *permission.Context
		nb, out, rootsErr = base.Within(dirs)
		refused = append(refused, out...)
		if rootsErr == nil {
			base = nb
		} else {
			rootsErr = fmt.Errorf("the client's roots are outside the server's working directories: %w", rootsErr)
		}
	}
	for _, r := range refused {
		c.srv.log.Warn("client root refused: it is outside the server's working directories", "session", c.ss.ID(), "root", r)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rootsRead, c.rootsErr = true, rootsErr
	if rootsErr != nil {
		return nil
	}
	pc, err := base.Apply(c.updates...)
	if err != nil {
		return fmt.Errorf("re-applying the session's permission changes: %w", err)
	}
	c.base, c.pc = base, pc
	c.srv.log.Info("working directories from the client's roots", "session", c.ss.ID(), "dirs", pc.WorkingDirs())
	return nil
}

// rootPath turns a file:// root URI into a path.
func rootPath(uri string) (string, bool) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || (u.Host != "" && u.Host != "localhost") || u.Path == "" {
		return "", false
	}
	return u.Path, true
}

// call takes one tools/call through the pipeline. Every outcome is a result: failures of the
// call are error results the client's model reads.
func (c *conn) call(ctx context.Context, req *mcp.CallToolRequest) *mcp.CallToolResult {
	name := req.Params.Name
	t, ok := c.tools[name]
	if !ok {
		return errorResult(tool.UnknownToolMessage(name))
	}
	pc, err := c.permissions(ctx)
	if err != nil {
		return errorResult(fmt.Sprintf("Reins refused the call: %v", err))
	}
	in, err := toolcall.Decode(t, req.Params.Arguments)
	if err != nil {
		return errorResult(toolcall.UseErrorText(err))
	}
	var asker permission.Asker = refuseAsker{}
	if p := c.ss.InitializeParams(); p != nil && p.Capabilities != nil && p.Capabilities.Elicitation != nil {
		asker = &elicitAsker{c: c}
	}
	p := toolcall.Pipeline{Engine: &c.engine, Asker: asker}
	if audit := c.srv.opts.Audit; audit != nil {
		p.Audit = audit(c.ss.ID())
	}
	call := toolcall.Call{Tool: t, Input: in, Raw: req.Params.Arguments, Permissions: pc, Env: c.callEnv(ctx, req)}
	out := p.Run(ctx, call)
	if rec := c.srv.opts.Record; rec != nil {
		rec(c.ss.ID(), call, out)
	}
	switch {
	case out.Stage == toolcall.Denied:
		c.srv.log.Info("call denied", "session", c.ss.ID(), "tool", name, "reason", out.Decision.Reason.String())
		return errorResult(denyText(out.Decision))
	case ctx.Err() != nil:
		return errorResult(interruptedMessage)
	case out.Stage == toolcall.Aborted && errors.As(out.Err, new(*toolcall.AuditError)):
		c.srv.log.Error("call refused: its decision could not be recorded", "session", c.ss.ID(), "tool", name, "err", out.Err)
		return errorResult(out.Failure)
	case out.Stage == toolcall.Aborted:
		return errorResult(fmt.Sprintf("Reins could not decide the call: %v", out.Err))
	case out.Stage != toolcall.Done:
		return errorResult(out.Failure)
	}
	c.srv.log.Info("call allowed", "session", c.ss.ID(), "tool", name, "reason", out.Decision.Reason.String())
	res := toResult(out.Result)
	for _, n := range out.Notes {
		res.Content = append(res.Content, &mcp.TextContent{Text: n})
	}
	return res
}

const interruptedMessage = "The call was cancelled; whatever it started was stopped."

// callEnv is the session's environment for one call, with progress sent to the client when
// it asked for progress.
func (c *conn) callEnv(ctx context.Context, req *mcp.CallToolRequest) *tool.Env {
	env := &tool.Env{Permissions: c.callPermissions, UpdatePermissions: c.update, Files: c.files, Values: c.values}
	token := req.Params.GetProgressToken()
	if token == nil {
		return env
	}
	var mu sync.Mutex
	n := 0
	env.Progress = func(p tool.Progress) {
		mu.Lock()
		defer mu.Unlock()
		n++
		msg := p.Message
		if msg == "" {
			if s, ok := p.Data.(string); ok {
				msg = s
			}
		}
		// A slow client must not stall the tool: progress is best effort.
		nctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		c.ss.NotifyProgress(nctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(n), Message: msg})
	}
	return env
}

// denyText is the error result of a refused call: the engine's message and what decided it.
func denyText(d permission.Decision) string {
	if d.Reason == nil {
		return d.Message
	}
	return fmt.Sprintf("%s\n(Reins decided this by %s.)", d.Message, d.Reason)
}

func errorResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// toResult converts a tool result into MCP content blocks.
func toResult(r tool.Result) *mcp.CallToolResult {
	out := &mcp.CallToolResult{IsError: r.IsError, Content: []mcp.Content{}}
	for _, b := range r.Content {
		switch b.Type {
		case "image":
			data, err := base64.StdEncoding.DecodeString(b.Data)
			if err != nil {
				out.Content = append(out.Content, &mcp.TextContent{Text: "[an image that could not be decoded: " + err.Error() + "]"})
				continue
			}
			out.Content = append(out.Content, &mcp.ImageContent{MIMEType: b.MediaType, Data: data})
		default:
			out.Content = append(out.Content, &mcp.TextContent{Text: b.Text})
		}
	}
	return out
}
