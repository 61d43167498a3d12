package sdkproto

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/permission"
)

// errInterrupted is the cause of a turn the caller interrupted.
var errInterrupted = errors.New("interrupted by the SDK caller")

// InitializeRequest is the part of the caller's initialize request reins reads.
type InitializeRequest struct {
	Hooks              map[string]json.RawMessage `json:"hooks"`
	SDKMCPServers      []string                   `json:"sdkMcpServers"`
	JSONSchema         json.RawMessage            `json:"jsonSchema"`
	SystemPrompt       []string                   `json:"systemPrompt"`
	AppendSystemPrompt *string                    `json:"appendSystemPrompt"`
	Agents             map[string]json.RawMessage `json:"agents"`
	MCPServers         map[string]json.RawMessage `json:"mcpServers"`
	Plugins            []json.RawMessage          `json:"plugins"`

	// SDKMCPServerConfigs are the host's settings of its in-process servers (timeout, per-tool
	// policy), by server name.
	SDKMCPServerConfigs map[string]json.RawMessage `json:"sdkMcpServerConfigs"`
}

// InitializeResponse answers initialize.
type InitializeResponse struct {
	Commands              []SlashCommand `json:"commands"`
	Agents                []AgentInfo    `json:"agents"`
	OutputStyle           string         `json:"output_style"`
	AvailableOutputStyles []string       `json:"available_output_styles"`
	Models                []ModelInfo    `json:"models"`
	Account               AccountInfo    `json:"account"`
	Version               string         `json:"claude_code_version"`
	PermissionMode        string         `json:"permissionMode"`
	PID                   int            `json:"pid"`
	// MCPServersApplied says the request's mcpServers are the set read at launch
	// (--await-initialize); absent when it named none.
	MCPServersApplied *bool `json:"mcp_servers_applied,omitempty"`
	// PluginsApplied says every plugin the request listed is loaded in the session; absent
	// when it listed none.
	PluginsApplied *bool `json:"plugins_applied,omitempty"`
}

// SlashCommand is one entry of initialize's commands; reins has none yet.
type SlashCommand struct {
	Name         string `json:"name"`
	Description  string `json:"description"`
	ArgumentHint string `json:"argumentHint"`
}

// AgentInfo is one entry of initialize's agents: an agent type the Agent tool offers.
type AgentInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Model       string `json:"model,omitempty"`
}

// ModelInfo is one entry of initialize's models.
type ModelInfo struct {
	Value       string `json:"value"`
	DisplayName string `json:"displayName"`
	Description string `json:"description"`
}

// AccountInfo says how reins reaches its model.
type AccountInfo struct {
	APIKeySource string `json:"apiKeySource,omitempty"`
	APIProvider  string `json:"apiProvider,omitempty"`
}

// Server runs an SDK session over the caller's streams. Agent, Permissions and Emitter's
// writer are set up by the caller; Serve fills in the rest.
type Server struct {
	In  io.Reader
	Out io.Writer
	// Log receives what the caller sent wrong (malformed lines, unmatched responses); nil is
	// standard error.
	Log io.Writer

	Session  Session
	Options  Options
	Handlers Handlers

	conn    *Conn
	emitter *Emitter

	// mu guards the turns' queue and state, and boot's initted.
	mu    sync.Mutex
	turns turnQueue
	turn  turnState
	boot  bootState
}

// Session is the session a Server serves.
type Session struct {
	Agent       *agent.Agent
	Permissions *agent.Permissions
	Bus         *agent.Bus
	History     []llm.Message
	ID          string
	Init        InitInfo
}

// Options are the caller's choices of what a Server writes and how it asks.
type Options struct {
	// Partial adds stream_event lines.
	Partial bool
	// PromptStdio makes the caller answer the engine's asks with can_use_tool.
	PromptStdio bool
	// HookEvents adds the hook lines to the output (--include-hook-events).
	HookEvents bool
	// AwaitInitialize says the caller announced an initialize request before its first prompt
	// (--await-initialize): a user message that comes first fails the session closed.
	AwaitInitialize bool
}

// Handlers are what a Server calls on the session for the caller's requests and its turns.
type Handlers struct {
	// Checks are used by the stdio asker.
	Checks Checks
	// WrapAsker, if set, wraps the stdio asker (PermissionRequest hooks run beside it).
	WrapAsker func(permission.Asker) permission.Asker
	// OnInitialize applies what an initialize request configures; its error is the error
	// response. Nil accepts only requests that configure nothing.
	OnInitialize func(req InitializeRequest) error
	// ResolveModel checks the model of set_model ("" is the session's default) and returns the
	// name to use.
	ResolveModel func(name string) (string, error)
	// Agents lists the agent types for initialize's answer, after OnInitialize has run; nil
	// lists none.
	Agents func() []AgentInfo
	// Settings answers get_settings.
	Settings func() (any, error)
	// Run runs one turn; nil means Agent.Run. The CLI's wraps it to hold the model to a JSON
	// schema.
	Run func(ctx context.Context, history []llm.Message, prompt llm.Message) (*agent.Result, error)
	// Structured returns the turn's structured output, for the result line.
	Structured func() (any, bool)
	// ConnectSDKMCP starts the caller's in-process MCP servers named in initialize (which
	// OnInitialize has accepted), with this Server as their host (SendMCP). It runs once
	// initialize is answered and the next turn waits for it; nil refuses such an initialize.
	ConnectSDKMCP func(ctx context.Context, names []string) error
	// Checkpoints, when set, keeps a file checkpoint per user message and answers
	// rewind_files; nil answers it with canRewind false.
	Checkpoints Checkpointer
	// MCPMessage delivers an mcp_message the caller sent for one of its in-process servers.
	MCPMessage func(server string, message json.RawMessage) error
	// StartSession runs the SessionStart hooks, once, before the first turn: after
	// initialize, so the caller's SessionStart callbacks run too, and after its system
	// prompt, so the hooks' context is added to that one. Nil runs none.
	StartSession func(ctx context.Context)
}

// turnQueue is the caller's prompts waiting for their turn, and the running turn.
type turnQueue struct {
	queue  []queued
	eof    bool
	wake   chan struct{}
	cancel context.CancelCauseFunc // of the running turn
}

// turnState is what the next turn runs with and what the last one left.
type turnState struct {
	model  string
	system []llm.SystemBlock // set by initialize, applied at the next turn
	// history is the conversation after the last turn, for get_context_usage.
	history []llm.Message
	// refused is the first refusal that stops every turn (failclosed.go); last is the last
	// turn's result.
	refused *RefusedError
	last    *agent.Result
	// thinking is set_max_thinking_tokens' budget for the next turn; spawnThinking the
	// session's own (requests.go).
	thinking      thinkingState
	spawnThinking int
}

// bootState is how far the caller's initialize has gone.
type bootState struct {
	initted bool
	started sync.Once // StartSession
	// setup is open while the in-process MCP servers initialize named are connecting;
	// setupErr is why they could not be.
	setup    chan struct{}
	setupErr error
}

// connection returns the connection to the caller, made on first use: by Serve, or by an
// Elicit that comes first (an MCP server starting up).
func (s *Server) connection() *Conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn == nil {
		s.conn = NewConn(s.Out)
	}
	return s.conn
}

// SetSystem replaces the system prompt from the next turn on.
func (s *Server) SetSystem(blocks []llm.SystemBlock) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.turn.system = blocks
}

// Serve runs turns until the caller's input ends and every queued turn has its result, or ctx
// ends. It returns nil after a clean end of input.
func (s *Server) Serve(ctx context.Context) error {
	if s.Log == nil {
		s.Log = os.Stderr
	}
	s.connection()
	s.turns.wake = make(chan struct{}, 1)
	s.turn.model = s.Session.Agent.Model
	s.turn.spawnThinking = s.Session.Agent.ThinkingBudget
	s.emitter = &Emitter{W: s.conn, SessionID: s.Session.ID, Partial: s.Options.Partial, MaxTurns: s.Session.Agent.MaxTurns,
		MaxBudgetUSD: s.Session.Agent.MaxBudgetUSD, MaxOutputTokens: s.Session.Agent.MaxTokens, Structured: s.Handlers.Structured}
	if s.Handlers.Run == nil {
		s.Handlers.Run = s.Session.Agent.Run
	}
	s.emitter.HookEvents = s.Options.HookEvents
	if s.Session.Permissions != nil {
		s.emitter.Mode = func() string { return string(s.Session.Permissions.Context().Mode()) }
	}
	if s.Options.PromptStdio {
		var a permission.Asker = &Asker{Conn: s.conn, Checks: s.Handlers.Checks, Interrupt: func() { s.interrupt() }}
		if s.Handlers.WrapAsker != nil {
			a = s.Handlers.WrapAsker(a)
		}
		s.Session.Agent.Asker = a
	}
	go s.read()

	history := s.Session.History
	s.setHistory(history)
	budget := s.Session.Agent.MaxBudgetUSD
	spent := 0.0
	first := true
	for {
		prompt, ok := s.next(ctx)
		if !ok {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := s.conn.Err(); err != nil {
				return err
			}
			if r := s.refusal(); r != nil {
				return r
			}
			return nil
		}
		if err := s.awaitSetup(ctx); err != nil {
			s.emitter.Result(&agent.Result{Subtype: agent.SubtypeExecutionError, IsError: true, Messages: history, Err: err})
			continue
		}
		if first {
			s.emitter.Init(s.initInfo())
			first = false
		}
		if r := s.refusal(); r != nil {
			s.finish(refusedResult(r, history))
			continue
		}
		if budget > 0 {
			s.Session.Agent.MaxBudgetUSD = budget - spent
			if s.Session.Agent.MaxBudgetUSD <= 0 {
				s.finish(&agent.Result{Subtype: agent.SubtypeMaxBudget, IsError: true, Messages: history, CostKnown: true})
				continue
			}
		}
		res := s.runTurn(ctx, history, prompt)
		history = res.Messages
		s.setHistory(history)
		spent += res.CostUSD
		s.finish(res)
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := s.conn.Err(); err != nil {
			return err
		}
	}
}

// finish writes a turn's result line.
func (s *Server) finish(res *agent.Result) {
	s.mu.Lock()
	s.turn.last = res
	s.mu.Unlock()
	s.emitter.Result(res)
}

func (s *Server) initInfo() InitInfo {
	s.mu.Lock()
	info := s.Session.Init
	s.mu.Unlock()
	info.Model = s.currentModel()
	if s.Handlers.Agents != nil {
		// initialize may have added some since setup.
		info.Agents = nil
		for _, a := range s.Handlers.Agents() {
			info.Agents = append(info.Agents, a.Name)
		}
	}
	if s.Session.Permissions != nil {
		info.PermissionMode = string(s.Session.Permissions.Context().Mode())
	}
	return info
}

func (s *Server) currentModel() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.turn.model
}

// runTurn runs one user message through the agent with an interruptible context.
func (s *Server) runTurn(ctx context.Context, history []llm.Message, q queued) *agent.Result {
	prompt := q.msg
	tctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	s.mu.Lock()
	s.turns.cancel = cancel
	if s.turn.refused != nil {
		// Refused between the check in Serve and here: the turn starts aborted.
		cancel(s.turn.refused)
	}
	s.Session.Agent.Model = s.turn.model
	if s.turn.thinking.set {
		s.Session.Agent.ThinkingBudget = s.turn.thinking.budget
	}
	if s.turn.system != nil {
		// Applied once: what is added to it later (SessionStart's context) stays.
		s.Session.Agent.System, s.turn.system = s.turn.system, nil
	}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.turns.cancel = nil
		s.mu.Unlock()
	}()
	if s.Handlers.StartSession != nil {
		s.boot.started.Do(func() { s.Handlers.StartSession(ctx) })
	}
	tctx, err := s.beginCheckpoint(tctx, q)
	if err != nil {
		return &agent.Result{Subtype: agent.SubtypeExecutionError, IsError: true, Messages: history, Err: err}
	}
	unsubscribe := s.Session.Bus.Subscribe(s.emitter.Handle)
	res, _ := s.Handlers.Run(agent.WithPromptUUID(tctx, q.uuid), history, prompt)
	unsubscribe()
	if res.Messages == nil {
		res.Messages = history
	}
	return res
}

// interrupt aborts the running turn, if any, and reports whether there was one.
func (s *Server) interrupt() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.turns.cancel == nil {
		return false
	}
	s.turns.cancel(errInterrupted)
	return true
}

// next waits for the next queued user message; false means the input ended with nothing
// queued, or ctx ended.
func (s *Server) next(ctx context.Context) (queued, bool) {
	for {
		s.mu.Lock()
		if len(s.turns.queue) > 0 {
			m := s.turns.queue[0]
			s.turns.queue = s.turns.queue[1:]
			s.mu.Unlock()
			return m, true
		}
		eof := s.turns.eof
		s.mu.Unlock()
		if eof {
			return queued{}, false
		}
		select {
		case <-s.turns.wake:
		case <-ctx.Done():
			return queued{}, false
		}
	}
}

// queued is a user message waiting for its turn, with the caller's uuid for it (rewind_files
// names a message by it).
type queued struct {
	msg  llm.Message
	uuid string
}

func (s *Server) enqueue(m llm.Message, uuid string) {
	s.mu.Lock()
	s.turns.queue = append(s.turns.queue, queued{msg: m, uuid: uuid})
	s.mu.Unlock()
	s.signal()
}

func (s *Server) signal() {
	select {
	case s.turns.wake <- struct{}{}:
	default:
	}
}

func (s *Server) logf(format string, args ...any) {
	fmt.Fprintf(s.Log, "reins: sdk: "+format+"\n", args...)
}

// read dispatches the caller's lines until its input ends.
func (s *Server) read() {
	lr := newLineReader(s.In)
	n := 0
	for {
		line, err := lr.next()
		n++
		if errors.Is(err, errLineTooLong) {
			s.logf("input line %d skipped: %v", n, err)
			continue
		}
		if err != nil {
			if err != io.EOF {
				s.logf("reading input: %v", err)
			}
			break
		}
		s.dispatch(n, line)
	}
	s.conn.closeInput()
	s.mu.Lock()
	s.turns.eof = true
	s.mu.Unlock()
	s.signal()
}

func (s *Server) dispatch(n int, line []byte) {
	var in inbound
	if err := json.Unmarshal(line, &in); err != nil {
		s.logf("input line %d skipped: not a JSON object: %v", n, err)
		return
	}
	switch in.Type {
	case "user":
		m, err := parseUserMessage(in.Message)
		if err != nil {
			s.logf("input line %d skipped: %v", n, err)
			return
		}
		s.mu.Lock()
		early := s.Options.AwaitInitialize && !s.boot.initted
		s.mu.Unlock()
		if early {
			s.failClosed(&RefusedError{Request: "user", Reason: "a user message came before the initialize request that --await-initialize announced"})
		}
		s.enqueue(m, in.UUID)
	case "control_request":
		if in.RequestID == "" {
			s.logf("input line %d skipped: control_request without request_id", n)
			return
		}
		s.control(in.RequestID, in.Request)
	case "control_response":
		if in.Response == nil || !s.conn.deliver(*in.Response) {
			id := ""
			if in.Response != nil {
				id = in.Response.RequestID
			}
			s.logf("input line %d ignored: control_response for unknown request_id %q", n, id)
		}
	case "control_cancel_request":
		// Reins answers the caller's requests at once, so there is never one to withdraw.
	case "keep_alive", "update_environment_variables":
	default:
		s.logf("input line %d skipped: unknown message type %q", n, in.Type)
	}
}

// parseUserMessage reads the message of a user line: text or content blocks (text, image).
func parseUserMessage(raw json.RawMessage) (llm.Message, error) {
	var m struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(raw, &m); err != nil || len(raw) == 0 {
		return llm.Message{}, fmt.Errorf("user line without a message object")
	}
	if m.Role != "" && m.Role != "user" {
		return llm.Message{}, fmt.Errorf("user line with role %q", m.Role)
	}
	var text string
	if json.Unmarshal(m.Content, &text) == nil {
		if strings.TrimSpace(text) == "" {
			return llm.Message{}, fmt.Errorf("user message with empty content")
		}
		return llm.UserText(text), nil
	}
	var blocks []struct {
		Type   string `json:"type"`
		Text   string `json:"text"`
		Source *struct {
			Type      string `json:"type"`
			MediaType string `json:"media_type"`
			Data      string `json:"data"`
		} `json:"source"`
	}
	if err := json.Unmarshal(m.Content, &blocks); err != nil {
		return llm.Message{}, fmt.Errorf("user message content is neither a string nor an array of blocks")
	}
	out := llm.Message{Role: llm.RoleUser}
	for i, b := range blocks {
		switch b.Type {
		case "text":
			out.Content = append(out.Content, llm.Text(b.Text))
		case "image":
			if b.Source == nil || b.Source.Type != "base64" {
				return llm.Message{}, fmt.Errorf("user message block %d: only base64 image sources are supported", i)
			}
			out.Content = append(out.Content, llm.Image(b.Source.MediaType, b.Source.Data))
		default:
			return llm.Message{}, fmt.Errorf("user message block %d: unsupported type %q (text and image are)", i, b.Type)
		}
		if err := out.Content[len(out.Content)-1].Validate(); err != nil {
			return llm.Message{}, fmt.Errorf("user message block %d: %w", i, err)
		}
	}
	if len(out.Content) == 0 {
		return llm.Message{}, fmt.Errorf("user message with no content blocks")
	}
	return out, nil
}

// control answers one of the caller's control requests.
func (s *Server) control(id string, raw json.RawMessage) {
	var req struct {
		Subtype string  `json:"subtype"`
		Mode    string  `json:"mode"`
		Model   *string `json:"model"`
	}
	if err := json.Unmarshal(raw, &req); err != nil {
		// Nobody knows what it would have configured.
		s.refuse(id, "", fmt.Sprintf("invalid control request: %v", err))
		return
	}
	if s.controlMore(id, req.Subtype, raw) {
		return
	}
	switch req.Subtype {
	case "initialize":
		s.initialize(id, raw)
	case "interrupt":
		s.interrupt()
		s.conn.respond(id, map[string]any{"still_queued": []string{}})
	case "set_permission_mode":
		s.setMode(id, req.Mode)
	case "set_model":
		name := ""
		if req.Model != nil && *req.Model != "default" {
			name = *req.Model
		}
		s.setModel(id, name)
	case "mcp_status":
		s.conn.respond(id, map[string]any{"mcpServers": s.mcpServers()})
	case "mcp_message":
		s.mcpMessage(id, raw)
	case "get_context_usage":
		// Connecting in-process MCP servers changes the agent's tools, and the reader that
		// answers must stay free to carry their messages: while they connect, the caller is
		// told to ask again. A turn sets the agent's model under s.mu.
		if !s.setupDone() {
			s.conn.respondError(id, "get_context_usage: the in-process MCP servers are still connecting; ask again")
			return
		}
		s.mu.Lock()
		usage := s.Session.Agent.ContextUsage(s.turn.history)
		s.mu.Unlock()
		s.conn.respond(id, contextUsageResponse(usage))
	case "get_settings":
		if s.Handlers.Settings == nil {
			s.conn.respondError(id, "get_settings is not available")
			return
		}
		v, err := s.Handlers.Settings()
		if err != nil {
			s.conn.respondError(id, err.Error())
			return
		}
		s.conn.respond(id, v)
	case "":
		s.refuse(id, "", "control request without subtype")
	default:
		s.refuse(id, req.Subtype, fmt.Sprintf("unsupported control request subtype %q (reins supports initialize, interrupt, set_permission_mode, set_model, set_max_thinking_tokens, mcp_status, mcp_message, get_context_usage, get_settings)", req.Subtype))
	}
}

func (s *Server) initialize(id string, raw json.RawMessage) {
	var req InitializeRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		s.refuse(id, "initialize", fmt.Sprintf("invalid initialize request: %v", err))
		return
	}
	s.mu.Lock()
	again := s.boot.initted
	s.boot.initted = true
	s.mu.Unlock()
	if again {
		s.refuse(id, "initialize", "already initialized")
		return
	}
	apply := s.Handlers.OnInitialize
	if apply == nil {
		apply = refuseConfiguration
	}
	if len(req.SDKMCPServers) > 0 && s.Handlers.ConnectSDKMCP == nil {
		s.refuse(id, "initialize", errNoSDKServers.Error())
		return
	}
	if err := apply(req); err != nil {
		s.refuse(id, "initialize", err.Error())
		return
	}
	model := s.currentModel()
	resp := InitializeResponse{
		Commands: append([]SlashCommand{compactCommand}, s.Session.Init.Commands...), Agents: []AgentInfo{}, OutputStyle: "default", AvailableOutputStyles: []string{"default"},
		Models:  []ModelInfo{{Value: model, DisplayName: model, Description: "the session's model (" + s.Session.Init.Provider + ")"}},
		Account: AccountInfo{APIKeySource: s.Session.Init.APIKeySource},
		Version: s.Session.Init.Version, PID: os.Getpid(),
	}
	if s.Handlers.Agents != nil {
		resp.Agents = append(resp.Agents, s.Handlers.Agents()...)
	}
	if len(req.MCPServers) > 0 {
		// Accepted means applied: an OnInitialize refuses servers it did not start.
		applied := true
		resp.MCPServersApplied = &applied
	}
	if len(req.Plugins) > 0 {
		// Likewise: an OnInitialize refuses plugins the session did not load.
		applied := true
		resp.PluginsApplied = &applied
	}
	if s.Session.Permissions != nil {
		resp.PermissionMode = string(s.Session.Permissions.Context().Mode())
	}
	s.conn.respond(id, resp)
	if len(req.SDKMCPServers) > 0 {
		s.connectSDKServers(context.Background(), req.SDKMCPServers)
	}
}

// refuseConfiguration is the initialize of a server without OnInitialize: it accepts only a
// request that configures nothing.
func refuseConfiguration(req InitializeRequest) error {
	switch {
	case len(req.Hooks) > 0:
		return errors.New("SDK hook callbacks are not supported by this server")
	case len(req.Agents) > 0:
		return errors.New("custom agents are not supported by this server")
	case len(req.Plugins) > 0:
		return errors.New("plugins are not supported by this server")
	}
	return CheckSupported(req, false)
}

// CheckSupported refuses what an initialize request asks for that reins cannot do yet. Each is
// refused rather than ignored: MCP servers change what the model can do, and a JSON schema
// changes what the caller gets back. Hooks, agents, plugins and in-process SDK MCP servers are
// the OnInitialize's to apply.
// structured says whether a JSON schema is in force (--json-schema, which the SDK passes along
// with the same schema in initialize).
func CheckSupported(req InitializeRequest, structured bool) error {
	switch {
	case len(req.MCPServers) > 0:
		return errors.New("MCP servers are not supported by reins yet")
	case len(req.JSONSchema) > 0 && string(req.JSONSchema) != "null" && !structured:
		return errors.New("structured output needs the schema on the command line too (--json-schema), as the Agent SDK passes it")
	}
	return nil
}

func (s *Server) setMode(id, name string) {
	m, err := permission.ParseMode(name)
	if err != nil {
		s.refuse(id, "set_permission_mode", err.Error())
		return
	}
	if s.Session.Permissions == nil {
		s.refuse(id, "set_permission_mode", "set_permission_mode is not available")
		return
	}
	err = s.Session.Permissions.Update(context.Background(), permission.Update{Type: permission.SetMode, Destination: permission.SourceSession, Mode: m})
	if err != nil {
		s.refuse(id, "set_permission_mode", fmt.Sprintf("cannot switch to %s: %v", m, err))
		return
	}
	s.mu.Lock()
	idle := s.turns.cancel == nil
	s.mu.Unlock()
	if rec := s.Session.Agent.Recorder; rec != nil && idle {
		// A running turn records its permission changes itself; between turns nobody does.
		if err := rec.AppendPermissions(agent.StateOf(s.Session.Permissions.Context())); err != nil {
			s.logf("recording the permission mode: %v", err)
		}
	}
	s.conn.respond(id, map[string]any{"mode": string(s.Session.Permissions.Context().Mode())})
}

func (s *Server) setModel(id, name string) {
	resolved := name
	if s.Handlers.ResolveModel != nil {
		var err error
		if resolved, err = s.Handlers.ResolveModel(name); err != nil {
			s.conn.respondError(id, err.Error())
			return
		}
	} else if name == "" {
		resolved = s.Session.Init.Model
	}
	s.mu.Lock()
	s.turn.model = resolved
	s.mu.Unlock()
	s.conn.respond(id, nil)
}
