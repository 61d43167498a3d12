package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/agentdef"
	"github.com/reinsdev/reins/hooks"
	"github.com/reinsdev/reins/internal/app"
	"github.com/reinsdev/reins/internal/sdkproto"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/sandbox"
	"github.com/reinsdev/reins/session"
	"github.com/reinsdev/reins/settings"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/tools"
	"github.com/reinsdev/reins/tools/agenttool"
	"github.com/reinsdev/reins/tools/web"
)

// runSetup is everything a headless run needs, shared by `-p` and the SDK protocol.
type runSetup struct {
	env       *permEnv
	cwd       string
	choice    *app.Provider
	rec       *session.Writer // nil with --no-session-persistence
	sessionID string
	perms     *agent.Permissions
	pool      *app.Pool
	bus       *agent.Bus
	agent     *agent.Agent
	history   []llm.Message
	// prompt is what the system prompt was built from, to build it again (initialize).
	prompt app.PromptEnv
	// structured holds the structured output of --json-schema; nil without a schema.
	structured *structuredOutput
	// resumed says the conversation continues a saved one (SessionStart's source).
	resumed bool
	store   *session.Store
	hooks   *hooks.Runner
	// defs are the agent types the Agent tool offers; an SDK caller's initialize adds to them.
	defs *agentdef.Set
	mcp  *mcpSession
	// elicit answers MCP servers' requests for input with the front end connected to it
	// (the SDK caller), else declines them as headless.
	elicit  lateElicitor
	sandbox *sandbox.Sandbox
	// errOut receives the sandbox's report of what it refused, at Close.
	errOut io.Writer
	// stopDebug drains and ends the --debug log's subscription, at Close.
	stopDebug func()
	// resultsDir is where the agent saves results too large for the model: beside the
	// session file, or a temporary folder of the run (tempResults) removed at Close.
	resultsDir  string
	tempResults bool
	// permEngine decides every call of the session (see engine).
	permEngine *permission.Engine
}

// Close ends the tools' and hooks' processes, the MCP servers and the sandbox, and closes the
// session file.
func (s *runSetup) Close() {
	if s.stopDebug != nil {
		// The log gets every event of the run, the result included, before the exit line.
		s.stopDebug()
		s.stopDebug = nil
	}
	if s.pool != nil {
		s.pool.Close()
	}
	// After SessionEnd: what hooks left running ends with the run.
	s.hooks.Close()
	if s.mcp != nil {
		s.mcp.Close()
	}
	if s.sandbox != nil {
		printViolations(s.errOut, s.sandbox)
		s.sandbox.Close()
		s.sandbox = nil
	}
	if s.rec != nil {
		s.rec.Close()
	}
	if s.tempResults {
		os.RemoveAll(s.resultsDir)
		s.tempResults = false
	}
}

// openResultsDir picks the folder for saved tool results: <session id>/tool-results/ beside
// the session file, or without one a temporary folder that ends with the run. It returns pc
// with that folder readable: the model may read back what the agent saved for it without
// asking (Read deny rules still win). Setup and a switch of session both come here, so the
// folder the agent saves into and the one the model may read are always the same.
func (s *runSetup) openResultsDir(pc *permission.Context) (*permission.Context, error) {
	switch {
	case s.rec != nil:
		s.resultsDir = s.rec.ToolResultsDir()
	case !s.tempResults:
		dir, err := os.MkdirTemp("", "reins-tool-results-")
		if err != nil {
			return nil, fmt.Errorf("creating a folder for tool results: %w", err)
		}
		s.resultsDir, s.tempResults = dir, true
	}
	return pc.WithInternalReadDirs(s.resultsDir), nil
}

// checks is what an Asker needs to apply an answer.
func (s *runSetup) checks(f *Factory) sdkproto.Checks {
	return sdkproto.Checks{
		Permissions: s.perms,
		Lookup:      s.lookup,
		Log:         f.ErrOut,
	}
}

func (s *runSetup) lookup(name string) tool.Tool {
	t, _ := tools.Find(s.agent.Tools, name)
	return t
}

// initInfo is what system/init reports.
func (s *runSetup) initInfo(f *Factory) sdkproto.InitInfo {
	return sdkproto.InitInfo{Cwd: s.cwd, Tools: tools.Names(s.agent.Tools), Model: s.choice.Model, Provider: s.choice.Name,
		PermissionMode: string(s.perms.Context().Mode()), APIKeySource: apiKeySource(f, s.choice.Name), Version: reinsVersion(),
		MCPServers: s.mcp.statuses(), Agents: agentNames(s.defs)}
}

func agentNames(defs *agentdef.Set) []string {
	var out []string
	for _, d := range defs.All() {
		out = append(out, d.Name)
	}
	return out
}

// setupRun checks the flags, reads the settings, restores or creates the session and builds
// the agent. The caller must Close the result.
func setupRun(ctx context.Context, f *Factory, opts *agentOptions) (_ *runSetup, err error) {
	if opts.continueLast && opts.resume != "" {
		return nil, usageErrorf("--continue and --resume cannot be used together")
	}
	if opts.maxTurns < 0 {
		return nil, usageErrorf("--max-turns must not be negative")
	}
	// Every rule source must be usable (a broken deny stops the run), and bypass is refused
	// to root however it is reached.
	env, err := opts.perm.loadForRun(f)
	if err != nil {
		return nil, err
	}
	for _, w := range env.warnings {
		f.warn("%s", w)
	}
	s := &runSetup{env: env, cwd: env.pc.OriginalCwd(), bus: &agent.Bus{}, errOut: f.ErrOut}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()

	// Restore the session before anything else, so that a bad id fails fast.
	store := session.NewStore(env.opts.ConfigDir)
	s.store = store
	transcript, pc, err := restoreSession(ctx, f, store, s.cwd, env.pc, opts)
	if err != nil {
		return nil, err
	}
	if transcript != nil {
		s.history, s.resumed = transcript.Messages, true
	}

	httpClient, retry := streamNet(f)
	if s.choice, err = app.ResolveProvider(ctx, app.ProviderOptions{Provider: opts.provider, Model: opts.model, Settings: env.loaded,
		Getenv: f.Getenv, HTTPClient: httpClient, Retry: retry}); err != nil {
		return nil, err
	}
	provider := s.choice.LLM
	if fb := opts.sdk.fallbackModel; fb != "" {
		provider = &fallbackProvider{Provider: provider, fallback: fb, log: f.ErrOut}
	}

	if err := s.openSession(store, transcript, opts); err != nil {
		return nil, err
	}
	if pc, err = s.openResultsDir(pc); err != nil {
		return nil, err
	}
	if f.Debug != nil {
		f.debugf("provider", "name", s.choice.Name, "model", s.choice.Model)
		s.stopDebug = s.bus.Subscribe(debugEvents(f.Debug))
	}
	s.perms = agent.NewPermissions(pc, func(_ context.Context, updates []permission.Update) error {
		return settings.Persist(env.opts, updates...)
	})
	if transcript != nil && transcript.Permissions != nil {
		// Scoped approvals come back only while they are still valid.
		s.perms.RestoreScoped(transcript.Permissions.Scoped)
	}
	if s.rec != nil {
		if err := s.rec.AppendPermissions(s.perms.State()); err != nil {
			return nil, err
		}
	}
	defs, defWarnings, err := loadAgentDefs(env, opts.agents)
	if err != nil {
		return nil, err
	}
	for _, w := range defWarnings {
		f.warn("%s", w)
	}
	s.defs = defs
	if s.sandbox, err = startSandbox(ctx, f, env, pc); err != nil {
		return nil, err
	}
	s.pool = app.NewPool(pc, s.perms.Context, app.PoolOptions{
		Getenv:     f.Getenv,
		Summarizer: web.ModelSummarizer{Provider: s.choice.LLM, Model: s.choice.SmallModel(env.loaded, f.Getenv)},
		Sandbox:    s.sandbox,
		Groups:     shellGroups(),
	})
	if s.hooks, err = newHookRunner(env, s.sessionID, s.transcriptPath(), s.bus, opts.sdk.inputFormat == inputStreamJSON); err != nil {
		return nil, err
	}
	if err := s.buildAgent(ctx, f, opts, pc, provider, store, defs); err != nil {
		return nil, err
	}
	return s, nil
}

// restoreSession loads the session --continue or --resume names, if any, and restores its
// permission state onto pc.
func restoreSession(ctx context.Context, f *Factory, store *session.Store, cwd string, pc *permission.Context, opts *agentOptions) (*session.Transcript, *permission.Context, error) {
	var transcript *session.Transcript
	var err error
	switch {
	case opts.continueLast:
		id, err := store.Latest(cwd)
		if err != nil {
			return nil, nil, fmt.Errorf("--continue: %w", err)
		}
		if transcript, err = store.Load(ctx, cwd, id); err != nil {
			return nil, nil, err
		}
	case opts.resume != "":
		if transcript, err = store.Load(ctx, cwd, opts.resume); err != nil {
			return nil, nil, fmt.Errorf("--resume: %w", err)
		}
	default:
		return nil, pc, nil
	}
	if transcript.Skipped > 0 {
		f.warn("%d unreadable line(s) of session %s were skipped", transcript.Skipped, transcript.ID)
	}
	if transcript.Permissions != nil {
		keep := opts.perm.mode != "" || opts.perm.dangerouslySkip
		if pc, err = transcript.Permissions.Restore(pc, keep); err != nil {
			return nil, nil, err
		}
		if err := refuseRootBypass(f, pc, "the resumed session"); err != nil {
			return nil, nil, err
		}
	}
	return transcript, pc, nil
}

// buildAgent adds the Agent tool, picks the tools (--tools, --json-schema), builds the system
// prompt and the agent, and the permission-prompt tool's Asker.
func (s *runSetup) buildAgent(ctx context.Context, f *Factory, opts *agentOptions, pc *permission.Context, provider llm.Provider,
	store *session.Store, defs *agentdef.Set) error {
	s.prompt = s.promptEnv(pc, opts)
	asker, background := s.headlessAskers(opts)
	s.pool.AddAgentTool(s.agentConfig(f, opts, store, defs, background))
	deferral, err := s.finishPool(ctx, f, opts, pc)
	if err != nil {
		return err
	}
	s.prompt.Replace = opts.sdk.systemPrompt
	if s.structured != nil {
		s.prompt.Append = joinNonEmpty(s.prompt.Append, structuredPrompt)
	}
	system, err := app.SystemPrompt(ctx, deferral.Sent(s.pool.Tools), s.prompt)
	if err != nil {
		return err
	}
	s.agent = s.newAgent(f, opts, provider, system, deferral, asker)
	return s.promptToolAsker(f, opts)
}

// promptEnv is what the system prompt says of the session's environment.
func (s *runSetup) promptEnv(pc *permission.Context, opts *agentOptions) app.PromptEnv {
	var dirs []string
	for _, d := range pc.AdditionalDirs() {
		dirs = append(dirs, d.Path)
	}
	return app.PromptEnv{
		Cwd: s.cwd, Dirs: dirs, Platform: runtime.GOOS, Date: time.Now(), Git: app.IsGitRepo(s.cwd),
		Mode: pc.Mode(), Append: opts.appendSystemPrompt,
	}
}

// headlessAskers are the askers of a run no person answers: the main agent's and background
// sub-agents'. PermissionRequest hooks answer asks before the headless auto-deny; a front
// end's asker (the SDK's can_use_tool) is put in front of them later (see Server.WrapAsker).
// An SDK caller may register such hooks in initialize, after this. Both are nil when nothing
// can answer: the engine denies.
func (s *runSetup) headlessAskers(opts *agentOptions) (asker, background permission.Asker) {
	if s.hooks.Has(hooks.PermissionRequest) || opts.sdk.inputFormat == inputStreamJSON {
		// Undecided, a background sub-agent's ask gets the asyncAgent denial.
		return s.withHooks(nil), hookedAsker{s: s, background: true}
	}
	return nil, nil
}

// agentConfig is the Agent tool's view of the session.
func (s *runSetup) agentConfig(f *Factory, opts *agentOptions, store *session.Store, defs *agentdef.Set, background permission.Asker) app.AgentConfig {
	sc := app.AgentConfig{Definitions: defs, Provider: s.choice.LLM, Model: s.choice.Model, ResolveModel: s.choice.ResolveModel,
		Permissions: s.perms, Bus: s.bus, Prompt: s.prompt, MaxTurns: opts.maxTurns,
		Hooks: s.hooks, Asker: parentAsker{s}, BackgroundAsker: background, Engine: s.engine(f),
		// Read when a sub-agent starts: a switch of session moves the folder (switchTo).
		ResultsDir:     func() string { return s.resultsDir },
		MaxConcurrency: envInt(f, "REINS_MAX_TOOL_USE_CONCURRENCY")}
	if s.rec != nil {
		// Without persistence sub-agents keep no transcript either. The session is the one
		// of the moment: a switch (switchTo) moves its sub-agents' transcripts too.
		sc.NewTranscript = func(agentID string) (agenttool.Transcript, string, error) {
			w, err := store.CreateSidechain(s.rec, agentID, s.cwd, s.choice.Model)
			if err != nil {
				return nil, "", err
			}
			return w, w.Path, nil
		}
	}
	return sc
}

// finishPool adds the MCP tools (and ToolSearch when they are deferred) after the Agent tool,
// in the pool sub-agents draw from too, then applies the SDK's choices to the whole pool and
// adds the structured-output tool of --json-schema.
func (s *runSetup) finishPool(ctx context.Context, f *Factory, opts *agentOptions, pc *permission.Context) (*tool.Deferral, error) {
	var err error
	if s.mcp, err = startMCP(ctx, f, s.env, pc, &opts.mcp, &s.elicit); err != nil {
		return nil, err
	}
	var deferral *tool.Deferral
	if s.pool.Tools, deferral, err = s.mcp.extend(f, pc, s.pool.Tools); err != nil {
		return nil, err
	}
	if s.pool.Tools, err = opts.sdk.selectTools(s.pool.Tools); err != nil {
		return nil, err
	}
	if opts.sdk.jsonSchema != "" {
		s.structured = &structuredOutput{}
		st, err := newStructuredTool(opts.sdk.jsonSchema, s.structured)
		if err != nil {
			return nil, err
		}
		s.pool.Tools = append(s.pool.Tools, st)
	}
	return deferral, nil
}

// newAgent is the session's agent over the finished pool.
func (s *runSetup) newAgent(f *Factory, opts *agentOptions, provider llm.Provider, system []llm.SystemBlock, deferral *tool.Deferral, asker permission.Asker) *agent.Agent {
	a := &agent.Agent{
		Provider:       provider,
		Model:          s.choice.Model,
		System:         system,
		Tools:          s.pool.Tools,
		Deferral:       deferral,
		MaxTokens:      envInt(f, "REINS_MAX_OUTPUT_TOKENS"),
		MaxTurns:       opts.maxTurns,
		MaxBudgetUSD:   opts.sdk.maxBudgetUSD,
		MaxConcurrency: cmp.Or(envInt(f, "REINS_MAX_TOOL_USE_CONCURRENCY"), envInt(f, "CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY")),
		Engine:         s.engine(f),
		Permissions:    s.perms,
		Env:            s.pool.Env,
		Cwd:            s.pool.Cwd,
		Bus:            s.bus,
		Notices:        s.pool.Notices,
		Hooks:          s.hooks,
		Asker:          asker,
		ResultsDir:     s.resultsDir,
	}
	if s.rec != nil {
		a.Recorder = s.rec
	}
	return a
}

// promptToolAsker makes --permission-prompt-tool's tool (other than stdio) the agent's asker,
// behind the PermissionRequest hooks.
func (s *runSetup) promptToolAsker(f *Factory, opts *agentOptions) error {
	name := opts.sdk.promptTool
	if name == "" || name == promptToolStdio {
		return nil
	}
	t := s.lookup(name)
	if t == nil {
		return usageErrorf("--permission-prompt-tool: no tool %q in the tool pool (tools: %v)", name, tools.Names(s.agent.Tools))
	}
	s.agent.Asker = s.withHooks(&sdkproto.ToolAsker{Tool: t, Env: s.pool.Env, Checks: s.checks(f)})
	return nil
}

// withHooks puts a front end's asker (nil: headless) behind the PermissionRequest hooks, which
// run beside it (first answer wins).
func (s *runSetup) withHooks(front permission.Asker) permission.Asker {
	return hookedAsker{s: s, front: front}
}

// hookedAsker looks for PermissionRequest hooks at each ask, not once at setup: an SDK caller
// registers its callbacks in initialize, after the asker is in place. Without such hooks it is
// the front end's asker, or the headless deny.
type hookedAsker struct {
	s     *runSetup
	front permission.Asker
	// background leaves an ask no hook decided undecided (a background sub-agent's, which the
	// Agent tool denies with its own reason).
	background bool
}

func (h hookedAsker) Ask(ctx context.Context, req permission.AskRequest) (permission.Decision, error) {
	if !h.s.hooks.Has(hooks.PermissionRequest) {
		if h.background {
			return permission.Decision{Behavior: permission.Ask}, nil
		}
		if h.front == nil {
			d := req.Decision
			return permission.Decision{Behavior: permission.Deny, Message: d.Message, Reason: d.Reason, BlockedPath: d.BlockedPath}, nil
		}
		return h.front.Ask(ctx, req)
	}
	a := headlessHookAsker(h.s.hooks, h.s.perms).(*hooks.Asker)
	a.Next = h.front
	return a.Ask(ctx, req)
}

// transcriptPath is the session file hooks are told about; empty without persistence.
func (s *runSetup) transcriptPath() string {
	if s.rec == nil {
		return ""
	}
	return s.rec.Path
}

// parentAsker answers a foreground sub-agent's asks with whatever answers the main agent's at
// that moment: the SDK's can_use_tool is installed after setup, and hooks wrap it.
type parentAsker struct{ s *runSetup }

func (p parentAsker) Ask(ctx context.Context, req permission.AskRequest) (permission.Decision, error) {
	if p.s.agent == nil || p.s.agent.Asker == nil {
		// Headless: the ask is denied with its own message, as the engine does.
		d := req.Decision
		return permission.Decision{Behavior: permission.Deny, Message: d.Message, Reason: d.Reason, BlockedPath: d.BlockedPath}, nil
	}
	return p.s.agent.Asker.Ask(ctx, req)
}

// openSession creates, reopens or forks the session file, or only picks an id when nothing
// is saved.
func (s *runSetup) openSession(store *session.Store, transcript *session.Transcript, opts *agentOptions) error {
	sf := &opts.sdk
	var err error
	switch {
	case sf.noPersist:
		s.sessionID = cmp.Or(sf.sessionID, session.NewID())
		if transcript != nil && !sf.fork {
			s.sessionID = transcript.ID
		}
		return nil
	case transcript != nil && !sf.fork:
		s.rec, err = store.Reopen(transcript)
	default:
		s.rec, err = store.CreateWithID(s.cwd, cmp.Or(sf.sessionID, session.NewID()), s.choice.Model)
		if err == nil && transcript != nil {
			// A fork starts as a copy of the conversation it continues.
			for _, m := range transcript.Messages {
				if err = s.rec.AppendMessage(m); err != nil {
					s.rec.Close()
					s.rec = nil
					break
				}
			}
		}
	}
	if err != nil {
		return err
	}
	s.sessionID = s.rec.ID
	return nil
}

// fallbackProvider switches to another model when the model stays overloaded after the
// provider's own retries, as Claude Code's --fallback-model does.
type fallbackProvider struct {
	llm.Provider
	fallback string
	log      interface{ Write([]byte) (int, error) }
}

func (p *fallbackProvider) Stream(ctx context.Context, req *llm.Request, onEvent func(llm.Event)) (*llm.Response, error) {
	resp, err := p.Provider.Stream(ctx, req, onEvent)
	if err == nil || ctx.Err() != nil || req.Model == p.fallback || !overloaded(err) {
		return resp, err
	}
	fmt.Fprintf(p.log, "reins: %s is overloaded; switching to the fallback model %s\n", req.Model, p.fallback)
	r := *req
	r.Model = p.fallback
	return p.Provider.Stream(ctx, &r, onEvent)
}

// overloaded reports whether err says the model is overloaded (HTTP 529 or an
// overloaded_error event).
func overloaded(err error) bool {
	ae, ok := errors.AsType[*llm.APIError](err)
	return ok && (ae.StatusCode == 529 || ae.Type == "overloaded_error")
}

// joinNonEmpty joins the non-empty texts with a blank line.
func joinNonEmpty(texts ...string) string {
	var out []string
	for _, t := range texts {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return strings.Join(out, "\n\n")
}
