package agenttool

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/agentdef"
	"github.com/reinsdev/reins/hooks"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/toolcall"
	"github.com/reinsdev/reins/tools"
	"github.com/reinsdev/reins/tools/internal/schemax"
	"github.com/reinsdev/reins/tools/workflow"
)

// Name is the tool's name; LegacyName is what rules and old sessions may call it.
const (
	Name       = "Agent"
	LegacyName = "Task"
)

// DefaultType is the agent type of a call that names none.
const DefaultType = "general-purpose"

// MaxDepth bounds nesting: the main agent is depth 0, its sub-agents depth 1, and a
// definition that lists Agent in its tools may go at most this deep.
const MaxDepth = 3

// Input is the Agent tool's input.
type Input struct {
	Description     string `json:"description" jsonschema:"A short (3-5 word) description of the task"`
	Prompt          string `json:"prompt" jsonschema:"The task for the agent to perform"`
	SubagentType    string `json:"subagent_type,omitempty" jsonschema:"The type of specialized agent to use for this task"`
	Model           string `json:"model,omitempty" jsonschema:"Optional model for this agent (sonnet, opus or haiku); by default the agent definition's model, else the caller's"`
	RunInBackground bool   `json:"run_in_background,omitempty" jsonschema:"Run the agent in the background; you will be notified when it completes"`
}

// Output is the structured result of an Agent call.
type Output struct {
	// Status is "completed" or "async_launched".
	Status         string    `json:"status"`
	AgentID        string    `json:"agentId"`
	AgentType      string    `json:"agentType"`
	Content        string    `json:"content,omitempty"`
	ToolUseCount   int       `json:"totalToolUseCount"`
	DurationMS     int64     `json:"totalDurationMs"`
	Usage          llm.Usage `json:"usage"`
	TranscriptPath string    `json:"transcriptPath,omitempty"`
}

// Transcript stores one sub-agent's conversation.
type Transcript interface {
	agent.Recorder
	Close() error
}

// Config connects the Agent tool to the agent that owns it. Provider, Model, Permissions,
// Tools and Definitions are required.
type Config struct {
	Definitions *agentdef.Set
	Provider    llm.Provider
	// Model is the parent's model; ResolveModel turns an alias (sonnet, opus, haiku) into a
	// model id, nil keeps what was written.
	Model        string
	ResolveModel func(string) string
	// Engine decides the sub-agents' calls; share the parent's so auto mode's denial limits
	// count across them.
	Engine      *permission.Engine
	Permissions *agent.Permissions
	// Asker answers foreground sub-agents' asks: the parent's.
	Asker permission.Asker
	// BackgroundAsker, if set, answers background sub-agents' asks before they are denied
	// (the PermissionRequest hooks). It must not reach a person.
	BackgroundAsker permission.Asker
	// Hooks run around the sub-agents' calls as around the parent's, and SubagentStop when a
	// sub-agent ends its turn; nil runs none.
	Hooks *hooks.Runner
	// Observer watches the sub-agents' runs as the parent's (telemetry): a sub-agent's spans
	// are children of the Agent call's. Nil observes nothing.
	Observer agent.Observer
	// Tools returns the parent's pool, the ceiling of every sub-agent's pool.
	Tools func() []tool.Tool
	// NewTools builds the tools that must be a sub-agent's own (its shell: directory and
	// background commands), given its permissions; they replace the parent's tools of the
	// same names, and close ends what they started. Nil shares all of the parent's tools.
	NewTools func(perms *agent.Permissions) (ts []tool.Tool, cwd func() string, close func() error)
	// Files is the parent's file state, shared with sub-agents.
	Files *tool.FileState
	// ResultsDir returns where sub-agents save results too large for the model, as the
	// parent does (agent.Agent.ResultsDir); nil or "" sends them whole. It is asked at each
	// sub-agent's start because the parent's folder moves when it switches sessions.
	ResultsDir func() string
	// Cwd is the parent's current directory.
	Cwd func() string
	// Bus is the parent's event bus: sub-agents' events are forwarded to it with
	// ParentToolUseID set.
	Bus *agent.Bus
	// System builds a sub-agent's system prompt from its definition; nil uses the
	// definition's prompt alone.
	System func(ctx context.Context, def *agentdef.Definition, ts []tool.Tool) ([]llm.SystemBlock, error)
	// NewTranscript opens a sub-agent's transcript and returns its path; nil keeps none.
	NewTranscript func(agentID string) (Transcript, string, error)
	// Manager runs background sub-agents; nil refuses run_in_background.
	Manager *Manager
	// MaxTurns bounds each sub-agent's replies; zero means no limit.
	MaxTurns       int
	MaxConcurrency int
	// Depth is the owner's nesting depth: 0 for the main agent.
	Depth int
	// Audit records each decision of a sub-agent before its call runs, naming the Agent
	// call (agent.Agent.Audit); nil records none.
	Audit toolcall.Auditor
}

// New returns the Agent tool for cfg.
func New(cfg Config) tool.Tool {
	a := &agentTool{cfg: cfg}
	return tool.Build(tool.Def[Input]{
		Name:        Name,
		Aliases:     []string{LegacyName},
		SearchHint:  "delegate a task to a sub-agent",
		Description: "Launch a new agent to handle complex, multi-step tasks autonomously",
		PromptFunc:  a.prompt,
		SchemaJSON: schemax.Static(Name, func() *jsonschema.Schema {
			return schemax.For[Input](func(s *jsonschema.Schema) {
				s.Properties["model"].Enum = []any{"sonnet", "opus", "haiku"}
			})
		}),
		Validate:         a.validate,
		CheckPermissions: a.checkPermissions,
		ReadOnly:         func(Input) bool { return true },
		ConcurrencySafe:  func(Input) bool { return true },
		UserFacingName: func(in Input) string {
			return cmp.Or(in.SubagentType, DefaultType)
		},
		Call: a.call,
	})
}

type agentTool struct{ cfg Config }

func typeOf(in Input) string { return cmp.Or(strings.TrimSpace(in.SubagentType), DefaultType) }

// DeniedRule returns the deny rule that names an agent type, if any.
func DeniedRule(pc *permission.Context, typ string) *permission.Rule {
	for _, r := range pc.ContentRules(permission.Deny, Name) {
		if r.Value.Content == typ {
			return r
		}
	}
	return nil
}

// offered returns the definitions the model may choose from: every one no deny rule names.
func (a *agentTool) offered() []*agentdef.Definition {
	pc := a.cfg.Permissions.Context()
	var out []*agentdef.Definition
	for _, d := range a.cfg.Definitions.All() {
		if DeniedRule(pc, d.Name) == nil {
			out = append(out, d)
		}
	}
	return out
}

func (a *agentTool) prompt(context.Context) (string, error) {
	var b strings.Builder
	b.WriteString(`Launch a new agent to handle complex, multi-step tasks autonomously. Each agent type has specific capabilities and tools available to it.

Available agent types and the tools they have access to:
`)
	for _, d := range a.offered() {
		tools := "All tools"
		if len(d.Tools) > 0 && !slices.Contains(d.Tools, "*") {
			tools = strings.Join(d.Tools, ", ")
		} else if len(d.DisallowedTools) > 0 {
			tools = "All tools except " + strings.Join(d.DisallowedTools, ", ")
		}
		fmt.Fprintf(&b, "- %s: %s (Tools: %s)\n", d.Name, d.Description, tools)
	}
	b.WriteString(`
When using the Agent tool, specify a subagent_type to choose the agent type; without one, general-purpose is used.

Usage notes:
- Launch several agents concurrently when the tasks are independent: put several Agent calls in one message.
- The agent's final message is returned to you as the tool result; it is not shown to the user, so summarise what matters.
- Each agent starts fresh: give it a complete, self-contained task description, and say exactly what it should return.
- With run_in_background the call returns at once with a task id; you will be notified when the agent completes, and TaskOutput reads its result. Do not poll.
- Agents are not allowed to ask the user questions; their permission prompts go to the user as yours do (background agents cannot prompt and are denied instead).`)
	return b.String(), nil
}

func (a *agentTool) validate(ctx context.Context, in Input, env *tool.Env) *tool.Failure {
	if strings.TrimSpace(in.Prompt) == "" {
		return tool.Fail("prompt must not be empty")
	}
	typ := typeOf(in)
	if a.cfg.Definitions.Get(typ) == nil {
		var names []string
		for _, d := range a.offered() {
			names = append(names, d.Name)
		}
		return tool.Failf("Agent type '%s' not found. Available agents: %s", typ, strings.Join(names, ", "))
	}
	if a.cfg.Manager == nil {
		// A background agent run in the foreground would put its asks to a person, which its
		// definition ruled out: refused, not run another way.
		switch {
		case in.RunInBackground:
			return tool.Fail("run_in_background is not available here")
		case a.cfg.Definitions.Get(typ).Background:
			return tool.Failf("Agent type '%s' always runs in the background, which is not available here", typ)
		}
	}
	return nil
}

// checkPermissions answers Agent(type) rules: deny, then ask, then allow; with none, the call
// is allowed (the sub-agent's own calls are each decided).
func (a *agentTool) checkPermissions(ctx context.Context, pc *permission.Context, in Input) permission.Decision {
	typ := typeOf(in)
	if r := DeniedRule(pc, typ); r != nil {
		permission.NoteRule(ctx, "agent: type rule", r, "deny")
		return permission.Decision{Behavior: permission.Deny,
			Message: fmt.Sprintf("Agent type '%s' has been denied by permission rule '%s' from %s.", typ, r.Value.String(), ruleOrigin(r)),
			Reason:  &permission.Reason{Type: permission.ReasonRule, Rule: r}}
	}
	for _, b := range []permission.Behavior{permission.Ask, permission.Allow} {
		for _, r := range pc.ContentRules(b, Name) {
			if r.Value.Content != typ {
				continue
			}
			permission.NoteRule(ctx, "agent: type rule", r, b.String())
			d := permission.Decision{Behavior: b, Reason: &permission.Reason{Type: permission.ReasonRule, Rule: r}}
			if b == permission.Ask {
				d.Message = permission.RequestMessage(Name)
			}
			return d
		}
	}
	permission.Notef(ctx, "agent: type rule", "no match", "%s", typ)
	return permission.Decision{Behavior: permission.Allow,
		Reason: &permission.Reason{Type: permission.ReasonOther, Detail: "starting a sub-agent is allowed; each of its calls is decided on its own"}}
}

func ruleOrigin(r *permission.Rule) string {
	if o := r.Origin.String(); o != "" {
		return fmt.Sprintf("%s (%s)", r.Source, o)
	}
	return r.Source.String()
}

func newAgentID() string {
	var b [8]byte
	rand.Read(b[:])
	return "a" + hex.EncodeToString(b[:])
}

func (a *agentTool) call(ctx context.Context, in Input, env *tool.Env) (tool.Result, error) {
	def := a.cfg.Definitions.Get(typeOf(in))
	if def == nil {
		return tool.Failf("Agent type '%s' not found", typeOf(in)).Result(), nil
	}
	id := newAgentID()
	parentID := ""
	if env != nil {
		parentID = env.ToolUseID
	}
	if in.RunInBackground || def.Background {
		return a.startBackground(ctx, id, parentID, def, in)
	}
	sub, err := a.prepare(ctx, id, parentID, def, in, false)
	if err != nil {
		return tool.Result{}, err
	}
	defer sub.close()
	stop := sub.forward(env)
	start := time.Now()
	res, runErr := sub.agent.Run(ctx, nil, llm.UserText(in.Prompt))
	stop()
	if runErr != nil && ctx.Err() != nil {
		return tool.Result{}, fmt.Errorf("sub-agent %s interrupted: %w", id, ctx.Err())
	}
	out := Output{Status: "completed", AgentID: id, AgentType: def.Name, Content: res.Text,
		ToolUseCount: countToolUses(res.Messages), DurationMS: time.Since(start).Milliseconds(),
		Usage: res.Usage, TranscriptPath: sub.transcriptPath}
	switch {
	case runErr != nil:
		return tool.Result{Content: []tool.Content{tool.Text(fmt.Sprintf("Agent %s failed: %v", def.Name, runErr))}, IsError: true, Output: out}, nil
	case res.Subtype == agent.SubtypeMaxTurns:
		text := fmt.Sprintf("Agent %s stopped after %d turns without finishing.", def.Name, res.NumTurns)
		if res.Text != "" {
			text += " Its last message:\n\n" + res.Text
		}
		return tool.Result{Content: []tool.Content{tool.Text(text)}, IsError: true, Output: out}, nil
	}
	return tool.Result{Content: []tool.Content{tool.Text(resultText(out))}, Output: out}, nil
}

// resultText is what the model reads: the sub-agent's answer, then its id and usage.
func resultText(o Output) string {
	text := cmp.Or(strings.TrimSpace(o.Content), "(the agent returned no text)")
	total := o.Usage.InputTokens + o.Usage.OutputTokens + o.Usage.CacheReadInputTokens + o.Usage.CacheCreationInputTokens
	return fmt.Sprintf("%s\n\nagentId: %s\n<usage>total_tokens: %d\ntool_uses: %d\nduration_ms: %d</usage>",
		text, o.AgentID, total, o.ToolUseCount, o.DurationMS)
}

func countToolUses(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		if m.Role == llm.RoleAssistant {
			n += len(m.ToolUses())
		}
	}
	return n
}

// subAgent is one prepared sub-agent and what must be closed after it.
type subAgent struct {
	agent          *agent.Agent
	parentID       string
	parentBus      *agent.Bus
	transcriptPath string
	closers        []func() error
}

func (s *subAgent) close() {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
}

// forward republishes the sub-agent's events on the parent's bus, labelled with the Agent
// call's id, and reports each of its tool calls as progress of that call. It returns the
// function that stops forwarding after every event was delivered.
func (s *subAgent) forward(env *tool.Env) (stop func()) {
	return s.agent.Bus.Subscribe(func(ev agent.Event) {
		switch ev.Type {
		case agent.EventResult, agent.EventTextDelta:
			return
		case agent.EventAssistant:
			for _, u := range ev.Response.Message.ToolUses() {
				env.Report(tool.Progress{Message: "Running " + u.Name,
					Data: map[string]any{"type": "agent_progress", "tool_use_id": u.ID, "tool_name": u.Name}})
			}
		}
		if ev.ParentToolUseID == "" {
			ev.ParentToolUseID = s.parentID
		}
		s.parentBus.Publish(ev)
	})
}

// parentAuditor names the Agent call whose sub-agent made a call, as forward does on the bus:
// the innermost one, for a sub-agent's sub-agent.
type parentAuditor struct {
	toolcall.Auditor
	parentID string
}

func (p parentAuditor) Decided(ctx context.Context, c toolcall.Call, d permission.Decision) error {
	if c.Parent == "" {
		c.Parent = p.parentID
	}
	return p.Auditor.Decided(ctx, c, d)
}

// prepare builds a sub-agent for def: its pool, permission view, system prompt and
// transcript.
func (a *agentTool) prepare(ctx context.Context, id, parentID string, def *agentdef.Definition, in Input, background bool) (*subAgent, error) {
	cfg := a.cfg
	sub := &subAgent{parentID: parentID, parentBus: cfg.Bus}
	perms := cfg.Permissions.Derive(func(pc *permission.Context) *permission.Context {
		c := pc.WithMode(ChildMode(pc, def.PermissionMode))
		if background && cfg.BackgroundAsker == nil {
			c = c.WithAvoidPrompts(true)
		}
		return c
	})

	bus := &agent.Bus{}
	pool, cwd := a.pool(sub, def, perms, bus, background)

	system := []llm.SystemBlock{{Text: def.Prompt}}
	if cfg.System != nil {
		s, err := cfg.System(ctx, def, pool)
		if err != nil {
			sub.close()
			return nil, err
		}
		system = s
	}
	model := cfg.Model
	if m := cmp.Or(in.Model, def.Model); m != "" && m != "inherit" {
		model = m
		if cfg.ResolveModel != nil {
			model = cfg.ResolveModel(m)
		}
	}
	asker := cfg.Asker
	if background {
		asker = nil
		if cfg.BackgroundAsker != nil {
			asker = asyncAsker{cfg.BackgroundAsker}
		}
	}
	env := &tool.Env{Files: cfg.Files, Values: map[any]any{}}
	// Tools only the main agent may use (entering plan mode) refuse in a sub-agent's Env,
	// should one ever be in its pool.
	workflow.MarkSubAgent(env)
	sub.agent = &agent.Agent{
		Provider:       cfg.Provider,
		Model:          model,
		System:         system,
		Tools:          pool,
		MaxTurns:       maxTurns(cfg.MaxTurns, def.MaxTurns),
		MaxConcurrency: cfg.MaxConcurrency,
		Engine:         cfg.Engine,
		Asker:          asker,
		Permissions:    perms,
		Env:            env,
		Cwd:            cwd,
		Bus:            bus,
		Hooks:          cfg.Hooks,
		Observer:       cfg.Observer,
		SubAgent:       true,
	}
	if cfg.Audit != nil {
		sub.agent.Audit = parentAuditor{cfg.Audit, parentID}
	}
	if cfg.ResultsDir != nil {
		sub.agent.ResultsDir = cfg.ResultsDir()
	}
	if cfg.NewTranscript != nil {
		tr, path, err := cfg.NewTranscript(id)
		if err != nil {
			sub.close()
			return nil, fmt.Errorf("opening the transcript of sub-agent %s: %w", id, err)
		}
		sub.agent.Recorder = tr
		sub.transcriptPath = path
		sub.closers = append(sub.closers, tr.Close)
	}
	return sub, nil
}

// pool builds a sub-agent's tools: the parent's pool with the sub-agent's own shell tools in
// place of the parent's, filtered by Select, plus a nested Agent tool when the definition asks
// for one. It returns the directory the sub-agent's calls resolve against; what the fresh tools
// started is closed with sub.
func (a *agentTool) pool(sub *subAgent, def *agentdef.Definition, perms *agent.Permissions, bus *agent.Bus, background bool) ([]tool.Tool, func() string) {
	cfg := a.cfg
	parentTools := cfg.Tools()
	ceiling := slices.Clone(parentTools)
	cwd := cfg.Cwd
	if cfg.NewTools != nil {
		fresh, freshCwd, closeFresh := cfg.NewTools(perms)
		if closeFresh != nil {
			sub.closers = append(sub.closers, closeFresh)
		}
		for i, t := range ceiling {
			if f, ok := tools.Find(fresh, t.Name()); ok {
				ceiling[i] = f
			}
		}
		cwd = freshCwd
	}
	pool := Select(ceiling, def, background)
	if def.AllowsNesting() && cfg.Depth+1 < MaxDepth && !background && hasTool(parentTools, Name) {
		// The one way to nest: the definition asked for Agent. The nested tool's ceiling is
		// this sub-agent's own pool, so every level is a subset of the one above.
		nested := cfg
		nested.Permissions = perms
		nested.Depth = cfg.Depth + 1
		nested.Cwd = cwd
		nested.Bus = bus
		nested.Manager = nil
		var childTools []tool.Tool
		nested.Tools = func() []tool.Tool { return childTools }
		pool = append(pool, New(nested))
		childTools = pool
	}
	return pool, cwd
}

// maxTurns is the tighter of the session's limit for sub-agents and the definition's (zero:
// none).
func maxTurns(session, def int) int {
	if def > 0 && (session == 0 || def < session) {
		return def
	}
	return session
}

func hasTool(ts []tool.Tool, name string) bool {
	return slices.ContainsFunc(ts, func(t tool.Tool) bool { return t.Name() == name })
}

// Select returns the tools of a sub-agent of definition def, from its parent's pool, in the
// pool's order: tools.FilterForAgent, then, when def names MCP servers, only those servers'
// tools among the MCP tools, then def's disallowedTools removed, then def's tools selected
// (none or "*": all). Names match a tool's name or one of its aliases.
func Select(parentPool []tool.Tool, def *agentdef.Definition, background bool) []tool.Tool {
	named := func(t tool.Tool, names []string) bool {
		for _, n := range names {
			if n == t.Name() || slices.Contains(t.Spec().Aliases, n) {
				return true
			}
		}
		return false
	}
	all := len(def.Tools) == 0 || slices.Contains(def.Tools, "*")
	var out []tool.Tool
	for _, t := range tools.FilterForAgent(parentPool, background) {
		if def.MCPServers != nil && (t.Spec().MCP && !fromServer(t, def.MCPServers) || slices.Contains(anyServerTools, t.Name())) {
			continue
		}
		if named(t, def.DisallowedTools) {
			continue
		}
		if !all && !named(t, def.Tools) {
			continue
		}
		out = append(out, t)
	}
	return out
}

// anyServerTools reach the resources of every connected server (mcp/client's resource
// tools): a definition that names its servers does not get them.
var anyServerTools = []string{"ListMcpResourcesTool", "ReadMcpResourceTool"}

// mcpServerTool is an MCP tool that tells which configured server it comes from.
type mcpServerTool interface{ MCPServer() string }

// fromServer reports whether t comes from one of servers. A tool that cannot say is not: the
// name mcp__<server>__<tool> is no proof, as a server "a" and a server "a__b" share a prefix.
func fromServer(t tool.Tool, servers []string) bool {
	st, ok := t.(mcpServerTool)
	return ok && slices.Contains(servers, st.MCPServer())
}

// asyncAsker answers a background sub-agent's asks: its next (the PermissionRequest hooks) may
// allow or deny; anything else is Claude Code's asyncAgent denial. It never reaches a person.
type asyncAsker struct{ next permission.Asker }

func (a asyncAsker) Ask(ctx context.Context, req permission.AskRequest) (permission.Decision, error) {
	d, err := a.next.Ask(ctx, req)
	// Only a hook's answer counts; an asker that decided nothing falls through to the
	// asyncAgent denial, whose message says why no one was asked.
	if err == nil && d.Reason != nil && d.Reason.Type == permission.ReasonHook &&
		(d.Behavior == permission.Allow || d.Behavior == permission.Deny) {
		return d, nil
	}
	if ctx.Err() != nil {
		return permission.Decision{}, ctx.Err()
	}
	return permission.Decision{Behavior: permission.Deny,
		Message: fmt.Sprintf("Permission to use %s has been denied because background agents cannot ask for permission. Grant it with an allow rule, or run the agent in the foreground.", req.Tool),
		Reason:  &permission.Reason{Type: permission.ReasonAsyncAgent, Detail: "no one can answer prompts in a background agent"}}, nil
}
