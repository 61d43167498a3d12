package app

import (
	"context"
	"slices"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/agentdef"
	"github.com/reinsdev/reins/hooks"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/sandbox"
	"github.com/reinsdev/reins/skills"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/toolcall"
	"github.com/reinsdev/reins/tools"
	"github.com/reinsdev/reins/tools/agenttool"
	"github.com/reinsdev/reins/tools/bash"
	"github.com/reinsdev/reins/tools/skilltool"
	"github.com/reinsdev/reins/tools/web"
)

// PoolOptions are what the built-in tools of a session are made with.
type PoolOptions struct {
	// Getenv reads the environment (REINS_SIMPLE, the tools' own variables).
	Getenv func(string) string
	// Summarizer applies WebFetch's prompt to a page; nil leaves WebFetch without a model.
	Summarizer web.Summarizer
	// Sandbox, when not nil, confines every shell of the session, sub-agents' too.
	Sandbox *sandbox.Sandbox
	// Groups is told of every process group the shells start (the watchdog); may be nil.
	Groups bash.GroupGuard
	// Environ is the environment of Bash commands (the settings' env applied); nil is the
	// process's.
	Environ []string
}

// Pool is the tools of one session and the state they share. Tools is what the model is
// offered; a front end may extend or narrow it (MCP tools, the SDK's choices) before the
// agent takes it.
type Pool struct {
	Tools []tool.Tool
	// Env is the file state and values every call of the session shares.
	Env *tool.Env
	// Cwd is the shell's working directory of the moment.
	Cwd func() string
	// Notices returns the completion notices of background sub-agents; nil until the Agent
	// tool is added.
	Notices func() []string

	// base is the built-ins before filtering, to which the Agent tool is added; shell runs
	// Bash, confined by sandbox when it is set.
	base    []tool.Tool
	shell   *bash.Shell
	sandbox bash.Sandbox
	groups  bash.GroupGuard
	getenv  func(string) string
	close   func() error
	// environ is the environment of the shells' commands (PoolOptions.Environ).
	environ []string
	// pc is the context the pool was filtered with, to filter again when a tool is added.
	pc *permission.Context
}

// NewPool builds the tools of a session whose permission context is perms (read at each call:
// the session's context changes; nil for a pool that runs no command): every built-in, minus the ones a tool-wide deny rule of pc
// removes, in Claude Code's order (tools.Assemble). Close ends the shell behind Bash.
func NewPool(pc *permission.Context, perms func() *permission.Context, opts PoolOptions) *Pool {
	sb := ShellSandbox(opts.Sandbox)
	sh := bash.New(bash.Options{Permissions: perms, Sandbox: sb, Groups: opts.Groups, Env: opts.Environ})
	// The pool owns the shell (it may be sandboxed), so it closes it; tools.Base leaves a
	// Shell it is given to its owner.
	base := tools.Base(tools.Options{Shell: sh, Getenv: opts.Getenv, Web: web.Options{Summarizer: opts.Summarizer}}).Tools
	return &Pool{
		Tools:   tools.Assemble(pc, base, nil, opts.Getenv),
		Env:     &tool.Env{Files: tool.NewFileState(), Values: map[any]any{}},
		Cwd:     sh.Cwd,
		base:    base,
		shell:   sh,
		sandbox: sb,
		groups:  opts.Groups,
		getenv:  opts.Getenv,
		environ: opts.Environ,
		close:   sh.Close,
		pc:      pc,
	}
}

// Close ends what the tools started (background commands and sub-agents). It may be called
// more than once.
func (p *Pool) Close() error {
	if p.close == nil {
		return nil
	}
	err := p.close()
	p.close = nil
	return err
}

// ShellSandbox keeps a nil *sandbox.Sandbox a nil interface, so the shell knows it has none.
func ShellSandbox(sb *sandbox.Sandbox) bash.Sandbox {
	if sb == nil {
		return nil
	}
	return sb
}

// AgentConfig is what the Agent tool of a session needs beyond the pool.
type AgentConfig struct {
	Definitions *agentdef.Set
	// Provider and Model run the sub-agents; ResolveModel turns a definition's model (an
	// alias) into the provider's name. A pool that only lists or checks calls has no provider.
	Provider     llm.Provider
	Model        string
	ResolveModel func(string) string
	Permissions  *agent.Permissions
	Bus          *agent.Bus
	// Prompt is the session's system prompt environment; each sub-agent's is built from it.
	Prompt PromptEnv
	// NewTranscript, when set, records each sub-agent's conversation.
	NewTranscript func(agentID string) (agenttool.Transcript, string, error)
	MaxTurns      int
	// Hooks run around the sub-agents' calls as around the parent's; Asker answers
	// foreground sub-agents' asks, BackgroundAsker background ones' (hooks only).
	Hooks                  *hooks.Runner
	Asker, BackgroundAsker permission.Asker
	// Observer watches the sub-agents' runs (telemetry); nil observes nothing.
	Observer agent.Observer
	// ResultsDir returns where sub-agents save results too large for the model: the parent's
	// folder of the moment (it moves with a switch of session).
	ResultsDir     func() string
	MaxConcurrency int
	// Engine decides the sub-agents' calls: the session's, so that auto mode's classifier
	// and denial limits are shared.
	Engine *permission.Engine
	// Audit records the sub-agents' decisions before their calls run; nil records none.
	Audit toolcall.Auditor
}

// AddAgentTool adds the Agent tool to the pool. Each sub-agent gets fresh built-ins (its own
// shell and directory), filtered to a subset of this pool; background sub-agents are stopped
// by the pool's Close before its shell.
func (p *Pool) AddAgentTool(cfg AgentConfig) {
	mgr := agenttool.NewManager(p.shell)
	p.Notices = mgr.Notices
	closeShell := p.close
	p.close = func() error {
		mgr.Close()
		return closeShell()
	}
	resolve := cfg.ResolveModel
	if resolve == nil {
		resolve = func(m string) string { return m }
	}
	at := agenttool.Config{
		Definitions:     cfg.Definitions,
		Provider:        cfg.Provider,
		Model:           cfg.Model,
		ResolveModel:    resolve,
		Permissions:     cfg.Permissions,
		Asker:           cfg.Asker,
		BackgroundAsker: cfg.BackgroundAsker,
		Hooks:           cfg.Hooks,
		Observer:        cfg.Observer,
		Engine:          cfg.Engine,
		Tools:           func() []tool.Tool { return p.Tools },
		NewTools: func(perms *agent.Permissions) ([]tool.Tool, func() string, func() error) {
			// Only the shell's tools hold per-agent state (the directory, background
			// commands); the other built-ins are shared.
			sh := bash.New(bash.Options{Permissions: perms.Context, Cwd: p.Cwd(), Sandbox: p.sandbox, Groups: p.groups, Env: p.environ})
			return sh.Tools(), sh.Cwd, sh.Close
		},
		Files:      p.Env.Files,
		ResultsDir: cfg.ResultsDir,
		Cwd:        p.Cwd,
		Bus:        cfg.Bus,
		System: func(ctx context.Context, def *agentdef.Definition, ts []tool.Tool) ([]llm.SystemBlock, error) {
			env := cfg.Prompt
			env.Base, env.Append = def.Prompt, ""
			env.Mode = agenttool.ChildMode(cfg.Permissions.Context(), def.PermissionMode)
			return SystemPrompt(ctx, ts, env)
		},
		NewTranscript:  cfg.NewTranscript,
		Manager:        mgr,
		MaxTurns:       cfg.MaxTurns,
		MaxConcurrency: cfg.MaxConcurrency,
		Audit:          cfg.Audit,
	}
	p.base = append(slices.Clip(p.base), agenttool.New(at))
	p.Tools = tools.Assemble(cfg.Permissions.Context(), p.base, nil, p.getenv)
}

// AddSkillTool adds the Skill tool when the session has skills the model may load: its
// prompt lists their names and descriptions, the one place they enter the system prompt.
// onLoad is told of each skill a call loads; grants are the rules a load applies, which make
// it an ask (nil: the skill's own).
func (p *Pool) AddSkillTool(set *skills.Set, onLoad func(context.Context, *skills.Skill, *tool.Env), grants func(*skills.Skill) []permission.Rule) {
	if len(set.ForModel()) == 0 {
		return
	}
	p.base = append(slices.Clip(p.base), skilltool.New(skilltool.Options{Skills: set, OnLoad: onLoad, Grants: grants}))
	p.Tools = tools.Assemble(p.pc, p.base, nil, p.getenv)
}

// Catalog is every tool a session in pc can have that is not a server's: the built-ins, the
// Agent tool with the session's agent definitions and the Skill tool with its skills (when
// it has some the model may load), filtered and ordered as a session's
// pool, and All, the same before the tool-wide deny rules and REINS_SIMPLE remove any. It
// starts no process (Bash's shell starts at its first call) and has no model: its tools are
// for listing and deciding calls (`reins tools list`, `reins permissions check`), not running
// sub-agents. Close it.
func Catalog(pc *permission.Context, defs *agentdef.Set, sk *skills.Set, getenv func(string) string) (pool *Pool, all []tool.Tool) {
	// No live context for the shell: it runs nothing here, and Bash's read-only flag stays
	// "depends on the command" instead of being judged for an empty sample command.
	p := NewPool(pc, nil, PoolOptions{Getenv: getenv})
	perms := agent.NewPermissions(pc, nil)
	p.AddAgentTool(AgentConfig{Definitions: defs, Permissions: perms, Bus: &agent.Bus{}})
	p.AddSkillTool(sk, nil, nil)
	return p, slices.Clone(p.base)
}
