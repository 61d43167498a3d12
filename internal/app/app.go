package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sync"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/agentdef"
	"github.com/reinsdev/reins/checkpoint"
	"github.com/reinsdev/reins/commands"
	"github.com/reinsdev/reins/hooks"
	"github.com/reinsdev/reins/internal/app/provider"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/mcp/client"
	"github.com/reinsdev/reins/memory"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/plugins"
	"github.com/reinsdev/reins/sandbox"
	"github.com/reinsdev/reins/session"
	"github.com/reinsdev/reins/settings"
	"github.com/reinsdev/reins/skills"
	"github.com/reinsdev/reins/telemetry"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/tools"
	"github.com/reinsdev/reins/tools/bash"
	"github.com/reinsdev/reins/tools/slashcommand"
	"github.com/reinsdev/reins/tools/web"
	"github.com/reinsdev/reins/worktree"
)

// Options are everything a session is assembled from, as plain values: a front end parses its
// flags into them, a test or an embedder fills them in.
type Options struct {
	// Cwd is the session's working directory.
	Cwd string
	// Getenv reads the environment (settings locations, the provider's keys, the tools'
	// variables); nil is os.Getenv.
	Getenv func(string) string
	// Settings are the settings sources and the permission flags; their Cwd and Getenv
	// default to the Options'.
	Settings SettingsOptions
	// Geteuid is the effective user id, to refuse bypassPermissions as root; nil is
	// os.Geteuid.
	Geteuid func() int
	// Executable is the path of the reins binary, the sandbox's helper; nil is os.Executable.
	Executable func() (string, error)
	// MCP are the --mcp-config servers and who approves project servers.
	MCP MCPOptions

	// Provider and Model choose the model API (see provider.Resolve); FallbackModel is used
	// when the model stays overloaded.
	Provider, Model, FallbackModel string
	// Agents is --agents: more agent definitions as JSON.
	Agents string
	// PluginDirs are --plugin-dir folders: plugins loaded for this session, beside those the
	// enabledPlugins setting turns on.
	PluginDirs []string
	// InitializePlugins are the plugin folders an SDK caller's initialize request delivered
	// (--await-initialize): loaded as PluginDirs are, except that a plugin among them that
	// cannot be loaded does not stop the assembly but is kept in App.Ext.InitializePluginsErr, for
	// the initialize request's answer.
	InitializePlugins []string
	// SystemPrompt replaces Reins's system prompt; AppendSystemPrompt is added to it.
	SystemPrompt, AppendSystemPrompt string
	// Tools, when not nil, keeps only these tools of the pool (names or aliases), in the
	// pool's order; an empty non-nil list keeps none.
	Tools []string
	// JSONSchema, when set, makes every turn end with an answer in this shape (Structured).
	JSONSchema string
	// MaxTurns and MaxBudgetUSD stop a turn; 0 is no limit.
	MaxTurns     int
	MaxBudgetUSD float64
	// MaxThinkingTokens, when set, is the thinking budget (--max-thinking-tokens, the SDK's
	// maxThinkingTokens); 0 turns thinking off. Nil leaves it to MAX_THINKING_TOKENS and the
	// alwaysThinkingEnabled setting.
	MaxThinkingTokens *int

	// Continue restores the latest conversation of Cwd; Resume the one with this id. Fork
	// continues it in a new session. SessionID is the new session's id (default: a new one).
	// NoPersist saves nothing to disk.
	Continue bool
	Resume   string
	Fork     bool
	// ResumeAt, with Continue or Resume, continues the conversation as it was at the message
	// with this uuid (--resume-session-at): what came after is left out.
	ResumeAt  string
	SessionID string
	NoPersist bool

	// FileCheckpointing keeps checkpoints of the files the session's calls change, for
	// RewindFiles (the SDK's enableFileCheckpointing, the chat's /rewind).
	FileCheckpointing bool

	// LateHooks says the front end may add hook callbacks after New (the SDK's initialize), so
	// the session has a hooks runner and askers that consult the PermissionRequest hooks even
	// when no settings file configures one.
	LateHooks bool
	// ShellGroups and HookGroups are told of every process group the shells and the hooks
	// start (the process watchdog); may be nil.
	ShellGroups bash.GroupGuard
	HookGroups  hooks.GroupGuard
	// Worktree, when set, starts the session in a git worktree of its own (WorktreeOptions).
	Worktree *WorktreeOptions
	// Debug, when set, gets the session's debug log: the provider and every event.
	Debug *slog.Logger
	// Report gets the warnings and notes of the assembly and the session; New prints nothing.
	Report Reporter
}

// Reporter gets what a session tells the person: warnings, and notes that are not warnings
// (a server waiting for approval, a retry of the model API). Both may be called from any
// goroutine.
type Reporter struct {
	// Warn gets a warning ("reins: warning: " is the CLI's prefix, not part of it).
	Warn func(string)
	// Note gets a line to show as it is.
	Note func(string)
	// SandboxRefused gets, at Close, what the sandbox refused during the session.
	SandboxRefused func([]sandbox.Violation)
}

func (r Reporter) warn(format string, args ...any) {
	if r.Warn != nil {
		r.Warn(fmt.Sprintf(format, args...))
	}
}

func (r Reporter) note(format string, args ...any) {
	if r.Note != nil {
		r.Note(fmt.Sprintf(format, args...))
	}
}

// App is an assembled session: its settings, permissions, tools, servers, hooks, sandbox,
// the session file and the agent. A front end sets the agent's Asker (behind WithHooks),
// calls StartSession, runs turns with RunTurn and ends with Close.
type App struct {
	// Host is the session's settings and sandbox, started in the order every front end that
	// runs tools starts them (loadHost, then startSandbox).
	Host
	Cwd      string
	Provider *provider.Provider
	// Session is the session's record: its file, id, restored conversation, checkpoints and
	// worktree.
	Session     Session
	Permissions *agent.Permissions
	// Engine decides every call of the session, the sub-agents' included (auto mode's
	// classifier and its denial limits are the session's).
	Engine *permission.Engine
	Pool   *Pool
	Bus    *agent.Bus
	Agent  *agent.Agent
	// Ext are what the session is extended with beyond the built-in tools: plugins, skills,
	// hooks, MCP servers, agent types, commands and memory files.
	Ext Extensions
	// Prompt is what the system prompt was built from, to build it again.
	Prompt PromptEnv
	// Structured holds the answer of a JSONSchema session; nil without a schema.
	Structured *StructuredOutput
	// Telemetry exports the session's events, metrics and traces; nil when off.
	Telemetry *telemetry.Telemetry

	opts     Options
	thinking int // the thinking budget, 0 for none
	life     lifecycle
}

// Session is an App's record of its session.
type Session struct {
	Store    *session.Store
	Recorder *session.Writer // nil with NoPersist
	// recMu guards Recorder against SwitchSession for what records from the tools' goroutines
	// (the file state).
	recMu   sync.Mutex
	ID      string
	History []llm.Message // the restored conversation
	Resumed bool
	// Checkpoints is the session's shadow store; nil without FileCheckpointing.
	Checkpoints *checkpoint.Store
	// Worktree is the session's git worktree (Options.Worktree); the front end offers to keep
	// or remove it when the session ends (RemoveWorktree).
	Worktree *worktree.Worktree

	// tempCheckpoints is the store's folder when the session saves nothing (removed at Close).
	tempCheckpoints string
	// resultsDir is where the agent saves results too large for the model: beside the
	// session file, or a temporary folder (tempResults) removed at Close.
	resultsDir  string
	tempResults bool
}

// Extensions are what an App loaded beyond the built-in tools.
type Extensions struct {
	Hooks *hooks.Runner // nil when no hook runs
	MCP   *MCP
	// Agents are the agent types the Agent tool offers; a front end may add to them.
	Agents *agentdef.Set
	// Commands are the custom slash commands (PrepareCommand runs one).
	Commands *commands.Set
	// Plugins are the session's plugins and Skills its skills (the plugins' among them).
	Plugins *plugins.Set
	Skills  *skills.Set
	// InitializePluginsErr is why Options.InitializePlugins were not loaded (the session was
	// assembled without them); nil when they were, or when there were none.
	InitializePluginsErr error
	// Memory is the session's memory files (CLAUDE.md, AGENTS.md).
	Memory *Memory

	elicit lateElicitor
	// poolBase is the pool before the MCP tools, to extend again when servers join later (the
	// SDK caller's in-process servers).
	poolBase []tool.Tool
}

// lifecycle is where an App is between New and Close, and what Close ends.
type lifecycle struct {
	closed bool
	// started and ended say whether StartSession and EndSession ran.
	started, ended bool
	// stopDebug ends the debug log's subscription, stopMemory the memory's to the tool calls.
	stopDebug, stopMemory func()
	// audit records the session's calls in the audit log; stopAudit ends its subscription.
	audit     *auditRecorder
	stopAudit func()
}

// New assembles a session. On error everything started is ended; otherwise the caller must
// Close the App. Errors in what was asked for are UsageErrors; New prints nothing.
func New(ctx context.Context, opts Options) (_ *App, err error) {
	opts = withDefaults(opts)
	if err := opts.validate(); err != nil {
		return nil, err
	}
	a := &App{opts: opts, Bus: &agent.Bus{}}
	defer func() {
		if err != nil {
			a.Close()
			if a.Session.Worktree != nil {
				// A session that never started leaves no worktree behind.
				_ = worktree.Remove(context.WithoutCancel(ctx), a.git(), a.Session.Worktree, false)
			}
		}
	}()
	if err := a.openWorktree(ctx); err != nil {
		return nil, err
	}
	if err := a.loadSettings(); err != nil {
		return nil, err
	}
	if err := a.copyIncluded(ctx); err != nil {
		return nil, err
	}
	// The session is restored before anything else, so that a bad id fails fast.
	a.Session.Store = session.NewStore(a.Settings.Options.ConfigDir)
	transcript, pc, err := a.restore(ctx)
	if err != nil {
		return nil, err
	}
	provider, err := a.resolveProvider(ctx)
	if err != nil {
		return nil, err
	}
	if a.thinking, err = thinkingBudget(opts.MaxThinkingTokens, opts.Getenv, a.Settings.Loaded, a.Provider.Model, envInt(opts.Getenv, "REINS_MAX_OUTPUT_TOKENS")); err != nil {
		return nil, err
	}
	if err := a.openSession(transcript); err != nil {
		return nil, err
	}
	if err := a.openAudit(); err != nil {
		return nil, err
	}
	if pc, err = a.openResultsDir(pc); err != nil {
		return nil, err
	}
	if opts.Debug != nil {
		opts.Debug.Debug("provider", "name", a.Provider.Name, "model", a.Provider.Model, "credential", a.Provider.Credential)
		a.life.stopDebug = a.Bus.Subscribe(debugEvents(opts.Debug))
	}
	// The sandbox starts before the permission state is made: where the default sandbox finds
	// no backend, the session decides with it off.
	if pc, err = a.startSandbox(ctx, pc, a.askHost); err != nil {
		return nil, err
	}
	if err := a.newPermissions(pc, transcript); err != nil {
		return nil, err
	}
	if err := a.openCheckpoints(pc.WorkingDirs()); err != nil {
		return nil, err
	}
	if err := a.startTelemetry(ctx); err != nil {
		return nil, err
	}
	// The processes started from here on (the MCP servers) get the start-up span as their
	// TRACEPARENT.
	ctx, endStartup := a.Telemetry.StartSpan(ctx, "reins.startup")
	defer endStartup()
	if err := a.startTools(ctx, pc); err != nil {
		return nil, err
	}
	if err := a.buildAgent(ctx, pc, provider); err != nil {
		return nil, err
	}
	a.restoreSessionState(transcript)
	a.recordFiles()
	return a, nil
}

func withDefaults(o Options) Options {
	fromProcess(&o.Getenv, &o.Executable, &o.Settings, o.Cwd)
	return o
}

// fromProcess fills in, from the process, what a session or a host needs and an embedder left
// out: the environment, the executable (re-run as the sandbox's and the watchdog's helper),
// and the settings' environment and folder.
func fromProcess(getenv *func(string) string, executable *func() (string, error), so *SettingsOptions, cwd string) {
	if *getenv == nil {
		*getenv = os.Getenv
	}
	if *executable == nil {
		*executable = os.Executable
	}
	if so.Getenv == nil {
		so.Getenv = *getenv
	}
	so.Cwd = cmp.Or(so.Cwd, cwd)
}

func (o Options) validate() error {
	switch {
	case o.Cwd == "":
		return &UsageError{Err: errors.New("no working directory")}
	case o.Continue && o.Resume != "":
		return &UsageError{Err: errors.New("--continue and --resume cannot be used together")}
	case o.MaxTurns < 0:
		return &UsageError{Err: errors.New("--max-turns must not be negative")}
	case o.MaxBudgetUSD < 0:
		return &UsageError{Err: errors.New("--max-budget-usd must not be negative")}
	case o.Fork && !o.Continue && o.Resume == "":
		return &UsageError{Err: errors.New("--fork-session requires --continue or --resume")}
	case o.ResumeAt != "" && !o.Continue && o.Resume == "":
		return &UsageError{Err: errors.New("--resume-session-at requires --resume or --continue")}
	case o.SessionID != "" && !session.ValidID(o.SessionID):
		return &UsageError{Err: fmt.Errorf("invalid --session-id %q: want a UUID", o.SessionID)}
	}
	return nil
}

// loadSettings loads the session's host: its settings, where every rule source must be usable
// (a broken deny stops the session) and bypass is refused to root however it is reached.
func (a *App) loadSettings() error {
	h, err := loadHost(HostOptions{Cwd: a.opts.Cwd, Getenv: a.opts.Getenv, Settings: a.opts.Settings, Geteuid: a.opts.Geteuid,
		Executable: a.opts.Executable, ShellGroups: a.opts.ShellGroups, Report: a.opts.Report})
	if err != nil {
		return err
	}
	a.Host, a.Cwd = *h, h.Settings.Context.OriginalCwd()
	// From here on the session reads the environment through its settings' env blocks.
	a.opts.Getenv = a.root.Getenv
	return nil
}

// resolveProvider picks the model API; the agent's provider switches to FallbackModel when
// the model is overloaded.
func (a *App) resolveProvider(ctx context.Context) (llm.Provider, error) {
	httpClient, retry := provider.StreamNet(a.opts.Getenv, a.opts.Report.Note)
	var err error
	if a.Provider, err = provider.Resolve(ctx, provider.Options{Provider: a.opts.Provider, Model: a.opts.Model, Settings: a.Settings.Loaded,
		Getenv: a.opts.Getenv, HTTPClient: httpClient, Retry: retry, Trusted: a.Settings.Trusted, Dir: a.Cwd, Groups: a.opts.HookGroups}); err != nil {
		return nil, err
	}
	if fb := a.opts.FallbackModel; fb != "" {
		return provider.WithFallback(a.Provider.LLM, fb, a.opts.Report.Note), nil
	}
	return a.Provider.LLM, nil
}

// newPermissions makes the session's live permission state, with the scoped approvals of a
// restored session that are still valid, and records it.
func (a *App) newPermissions(pc *permission.Context, transcript *session.Transcript) error {
	a.Permissions = agent.NewPermissions(pc, func(_ context.Context, updates []permission.Update) error {
		if err := settings.Persist(a.Settings.Options, updates...); err != nil {
			return err
		}
		// A rule saved while a sandboxed command runs (the network ask's "always") is reins's
		// own write to a protected settings file, not the command's to undo.
		if a.Sandbox != nil {
			for _, u := range updates {
				files, err := a.Settings.Options.PersistFiles(u.Destination)
				for _, p := range files {
					if err == nil && u.Destination.Persisted() {
						a.Sandbox.Wrote(p)
					}
				}
			}
		}
		return nil
	})
	if transcript != nil && transcript.Permissions != nil {
		a.Permissions.RestoreScoped(transcript.Permissions.Scoped)
	}
	if a.Session.Recorder != nil {
		return a.Session.Recorder.AppendPermissions(a.Permissions.State())
	}
	return nil
}

// startTools loads the agent definitions and builds the built-in tools (their shells in the
// sandbox startSandbox started) and the hooks runner.
func (a *App) startTools(ctx context.Context, pc *permission.Context) error {
	hookEntries, err := a.loadExtensions(ctx)
	if err != nil {
		return err
	}
	defs, warnings, err := LoadAgentDefs(a.Settings, a.opts.Agents, pluginAgentDirs(a.Ext.Plugins)...)
	if err != nil {
		return err
	}
	for _, w := range warnings {
		a.opts.Report.warn("%s", w)
	}
	a.Ext.Agents = defs
	var cmdWarnings []string
	a.Ext.Commands, cmdWarnings = LoadCommands(ctx, a.Settings, PluginCommandRoots(a.Ext.Plugins)...)
	for _, w := range cmdWarnings {
		a.opts.Report.warn("%s", w)
	}
	a.Pool = NewPool(pc, a.Permissions.Context, PoolOptions{
		Getenv:     a.opts.Getenv,
		Summarizer: web.ModelSummarizer{Provider: a.Provider.LLM, Model: a.Provider.SmallModel(a.Settings.Loaded, a.opts.Getenv)},
		Sandbox:    a.Sandbox,
		Groups:     a.opts.ShellGroups,
		Environ:    a.Settings.Environ,
	})
	a.Pool.AddSkillTool(a.Ext.Skills, a.skillLoaded, func(s *skills.Skill) []permission.Rule {
		rules, _ := a.skillGrants(s)
		return rules
	})
	a.Ext.Hooks, err = newHookRunner(a.Settings, hookEntries, a.Session.ID, a.transcriptPath(), a.Bus, a.opts.LateHooks, a.opts.HookGroups, hookDeps{a})
	return err
}

// loadExtensions loads the plugins and the skills, and the plugins' hooks (returned, for the
// runner) and MCP servers (into the MCP options).
func (a *App) loadExtensions(ctx context.Context) ([]settings.HookEntry, error) {
	ext, err := a.readPluginParts(ctx, slices.Concat(a.opts.PluginDirs, a.opts.InitializePlugins))
	if err != nil && len(a.opts.InitializePlugins) > 0 {
		// The caller's initialize request is refused with this error (and the session fails
		// closed), so the session is assembled without the plugins it delivered.
		a.Ext.InitializePluginsErr = err
		ext, err = a.readPluginParts(ctx, a.opts.PluginDirs)
	}
	if err != nil {
		return nil, err
	}
	a.Ext.Plugins, a.opts.MCP.Plugins = ext.plugins, ext.servers
	a.Ext.Skills, ext.warnings = LoadSkills(ctx, a.Settings, a.Ext.Plugins)
	for _, w := range slices.Concat(ext.pluginWarnings, ext.warnings) {
		a.opts.Report.warn("%s", w)
	}
	hookEntries := ext.hooks
	skipped := map[string]int{}
	var why []string
	for _, h := range hookEntries {
		if h.Skipped != "" {
			if skipped[h.Skipped]++; skipped[h.Skipped] == 1 {
				why = append(why, h.Skipped)
			}
		}
	}
	for _, w := range why {
		a.opts.Report.note("plugins: %d hook(s) not run: %s", skipped[w], w)
	}
	return hookEntries, nil
}

// pluginParts are what the plugins of dirs (and the enabled ones) bring that can fail to load.
type pluginParts struct {
	plugins                  *plugins.Set
	hooks                    []settings.HookEntry
	servers                  []client.ServerConfig
	pluginWarnings, warnings []string
}

// readPluginParts loads the plugins and reads their hooks and MCP servers: every file of a
// plugin that stops the session when it cannot be read.
func (a *App) readPluginParts(ctx context.Context, dirs []string) (pluginParts, error) {
	var ext pluginParts
	var err error
	var warnings, hw []string
	if ext.plugins, warnings, err = LoadPlugins(ctx, a.Settings, dirs); err != nil {
		return ext, err
	}
	if ext.hooks, hw, err = PluginHooks(ctx, a.Settings, ext.plugins); err != nil {
		return ext, err
	}
	if ext.servers, err = PluginServers(ctx, ext.plugins); err != nil {
		return ext, err
	}
	ext.pluginWarnings = slices.Concat(warnings, hw)
	return ext, nil
}

// skillLoaded is told of each skill the Skill tool loaded: its allowed-tools become rules of
// source command, each with its file:line, for the rest of the turn of the agent that loaded
// it (a sub-agent's own turn for a sub-agent's load), never saved. They do not apply in an
// untrusted project (a project's or a plugin's skill), under managed policy's
// allowManagedPermissionRulesOnly, or where a call has no turn (env.AddTurnRules nil).
func (a *App) skillLoaded(_ context.Context, s *skills.Skill, env *tool.Env) {
	rules, why := a.skillGrants(s)
	if len(rules) > 0 && (env == nil || env.AddTurnRules == nil) {
		rules, why = nil, s.File+": allowed-tools ignored: the skill was not loaded in a turn"
	}
	if why != "" {
		a.opts.Report.note("%s", why)
	}
	if len(rules) == 0 {
		return
	}
	if err := env.AddTurnRules(rules); err != nil {
		// The rules were checked when the skill was read; the turn goes on without them.
		a.opts.Report.warn("skill %s: allowed-tools not applied: %v", s.Name, err)
	}
}

// skillGrants are the rules loading s applies for the turn, and why its allowed-tools do not
// apply when they do not: an untrusted project's or a plugin's skill there, or managed policy
// that allows its own rules only. The Skill tool asks before a load that grants any.
func (a *App) skillGrants(s *skills.Skill) ([]permission.Rule, string) {
	rules, why := s.Rules()
	if len(rules) > 0 && a.Settings.Loaded != nil && a.Settings.Loaded.ManagedRulesOnly() {
		return nil, s.File + ": allowed-tools ignored: managed policy sets allowManagedPermissionRulesOnly"
	}
	return rules, why
}

// buildAgent adds the Agent tool, finishes the pool (MCP, Tools, JSONSchema), builds the
// system prompt and the agent.
func (a *App) buildAgent(ctx context.Context, pc *permission.Context, provider llm.Provider) error {
	a.Prompt = promptEnv(a.Cwd, pc, a.opts.AppendSystemPrompt)
	warn := func(w string) { a.opts.Report.warn("%s", w) }
	var err error
	if a.Ext.Memory, err = LoadMemory(ctx, MemoryOptions(a.Settings, a.engine(), a.Permissions.Context), warn); err != nil {
		return err
	}
	a.Prompt.Memory = memory.Render(a.Ext.Memory.Files)
	asker, background := a.headlessAskers()
	a.Pool.AddAgentTool(a.agentConfig(background))
	if t := slashcommand.New(a.Ext.Commands, a.ExpandForModel); t != nil {
		a.Pool.Tools = append(a.Pool.Tools, t)
	}
	deferral, err := a.finishPool(ctx, pc)
	if err != nil {
		return err
	}
	a.Prompt.Replace = a.opts.SystemPrompt
	if a.Structured != nil {
		a.Prompt.Append = joinNonEmpty(a.Prompt.Append, structuredPrompt)
	}
	system, err := SystemPrompt(ctx, deferral.Sent(a.Pool.Tools), a.Prompt)
	if err != nil {
		return err
	}
	a.Agent = a.newAgent(provider, system, deferral, asker)
	a.life.stopMemory = a.Ext.Memory.Follow(ctx, a.Bus, a.Pool.Cwd)
	return nil
}

// finishPool adds the MCP tools (and ToolSearch when they are deferred) after the Agent tool,
// in the pool sub-agents draw from too, then keeps the Tools asked for and adds the
// structured-output tool of JSONSchema.
func (a *App) finishPool(ctx context.Context, pc *permission.Context) (*tool.Deferral, error) {
	var err error
	if a.Ext.MCP, err = StartMCP(ctx, a.Settings, pc, a.opts.Getenv, a.opts.MCP, &a.Ext.elicit, a.opts.Report); err != nil {
		return nil, err
	}
	if a.opts.JSONSchema != "" {
		a.Structured = &StructuredOutput{}
		if a.Structured.tool, err = newStructuredTool(a.opts.JSONSchema, a.Structured); err != nil {
			return nil, err
		}
	}
	a.Ext.poolBase = a.Pool.Tools
	return a.extendPool(pc)
}

// extendPool makes the pool from the tools before MCP's (poolBase): the MCP servers' tools and
// ToolSearch, the Tools asked for, the structured-output tool.
func (a *App) extendPool(pc *permission.Context) (*tool.Deferral, error) {
	all, deferral, err := a.Ext.MCP.Extend(pc, a.Ext.poolBase, a.opts.Getenv)
	if err != nil {
		return nil, err
	}
	if all, err = selectTools(all, a.opts.Tools); err != nil {
		return nil, err
	}
	if a.Structured != nil {
		all = append(all, a.Structured.tool)
	}
	a.Pool.Tools = all
	return deferral, nil
}

// newAgent is the session's agent over the finished pool.
func (a *App) newAgent(provider llm.Provider, system []llm.SystemBlock, deferral *tool.Deferral, asker permission.Asker) *agent.Agent {
	getenv := a.opts.Getenv
	ag := &agent.Agent{
		Provider:       provider,
		Model:          a.Provider.Model,
		System:         system,
		Tools:          a.Pool.Tools,
		Deferral:       deferral,
		MaxTokens:      envInt(getenv, "REINS_MAX_OUTPUT_TOKENS"),
		ThinkingBudget: a.thinking,
		MaxTurns:       a.opts.MaxTurns,
		MaxBudgetUSD:   a.opts.MaxBudgetUSD,
		MaxConcurrency: cmp.Or(envInt(getenv, "REINS_MAX_TOOL_USE_CONCURRENCY"), envInt(getenv, "CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY")),
		Engine:         a.engine(),
		Permissions:    a.Permissions,
		Env:            a.Pool.Env,
		Cwd:            a.Pool.Cwd,
		Bus:            a.Bus,
		Notices:        a.notices,
		Hooks:          a.Ext.Hooks,
		Asker:          asker,
		ResultsDir:     a.Session.resultsDir,
		Observer:       a.Telemetry.Observer(),
		Audit:          a.auditor(),
	}
	ag.Compaction = a.compaction()
	if a.Session.Recorder != nil {
		ag.Recorder = a.Session.Recorder
	}
	return ag
}

// notices are the background agents' and the folders' memory, for the next request.
func (a *App) notices() []string {
	var out []string
	if a.Pool.Notices != nil {
		out = a.Pool.Notices()
	}
	return append(out, a.Ext.Memory.Notices()...)
}

// SetElicitor makes e answer the MCP servers' requests for input (nil: declined, as
// headless). A front end sets it while it can answer.
func (a *App) SetElicitor(e client.Elicitor) { a.Ext.elicit.set(e) }

// Lookup finds a tool of the agent's pool by name or alias; nil when there is none.
func (a *App) Lookup(name string) tool.Tool {
	t, _ := tools.Find(a.Agent.Tools, name)
	return t
}

// Close ends the session in order: the SessionEnd hooks (when StartSession ran and EndSession
// did not), the debug log, the tools' processes and sub-agents, what hooks left running, the
// MCP servers, the sandbox (after every command that ran in it), the session file and a
// temporary results folder. It may be called more than once.
func (a *App) Close() error {
	if a.life.closed {
		return nil
	}
	a.life.closed = true
	a.EndSession(context.Background())
	if a.life.stopMemory != nil {
		a.life.stopMemory()
		a.life.stopMemory = nil
	}
	if a.life.stopDebug != nil {
		// The log gets every event of the session before it ends.
		a.life.stopDebug()
		a.life.stopDebug = nil
	}
	var errs []error
	if a.Pool != nil {
		errs = append(errs, a.Pool.Close())
	}
	a.Ext.Hooks.Close()
	if a.Ext.MCP != nil {
		errs = append(errs, a.Ext.MCP.Close())
	}
	if a.Sandbox != nil {
		if vs := a.Sandbox.Violations(); len(vs) > 0 && a.opts.Report.SandboxRefused != nil {
			a.opts.Report.SandboxRefused(vs)
		}
		errs = append(errs, a.Sandbox.Close())
	}
	if a.life.audit != nil {
		// After the tools and sub-agents have ended: every call of the session is in the log
		// before Close returns.
		errs = append(errs, a.life.audit.close(a.life.stopAudit))
		a.life.audit = nil
	}
	errs = append(errs, a.closeCheckpoints())
	if a.Session.Recorder != nil {
		errs = append(errs, a.Session.Recorder.Close())
	}
	if a.Session.tempResults {
		errs = append(errs, os.RemoveAll(a.Session.resultsDir))
	}
	// Last: the session's last spans and events are in by now.
	a.stopTelemetry()
	return errors.Join(errs...)
}
