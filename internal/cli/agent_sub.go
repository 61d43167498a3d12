package cli

import (
	"context"
	"fmt"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/agentdef"
	"github.com/reinsdev/reins/hooks"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/tools"
	"github.com/reinsdev/reins/tools/agenttool"
	"github.com/reinsdev/reins/tools/bash"
)

// loadAgentDefs reads the agent definitions of a session in cwd: built-ins, the user's and
// the project's folders, then the --agents JSON. A project that is not trusted may define
// agents but not choose their permission mode, as its settings may not choose the start mode.
// Files that cannot be used are returned as warnings with their positions.
func loadAgentDefs(env *permEnv, agentsJSON string) (*agentdef.Set, []string, error) {
	var extra []*agentdef.Definition
	if agentsJSON != "" {
		defs, err := agentdef.ParseJSON("--agents", []byte(agentsJSON), agentdef.SourceFlag)
		if err != nil {
			return nil, nil, &usageError{err}
		}
		extra = defs
	}
	set := agentdef.Load(agentdef.Dirs(env.opts.Home, env.opts.ConfigDir, env.pc.OriginalCwd()), extra...)
	var warnings []string
	for _, err := range set.Errors {
		warnings = append(warnings, fmt.Sprintf("agent definition skipped: %v", err))
	}
	if !env.trusted {
		for _, d := range set.All() {
			if d.Source == agentdef.SourceProject && d.PermissionMode != "" {
				warnings = append(warnings, fmt.Sprintf("%s: permissionMode %q ignored: the project is not trusted (run reins trust)", d.File, d.PermissionMode))
				d.PermissionMode = ""
			}
		}
	}
	return set, warnings, nil
}

// subAgentConfig is what the Agent tool of a run needs beyond the pool.
type subAgentConfig struct {
	defs     *agentdef.Set
	choice   *providerChoice
	perms    *agent.Permissions
	bus      *agent.Bus
	env      promptEnv
	store    func(agentID string) (agenttool.Transcript, string, error)
	maxTurns int
	// hooks run around the sub-agents' calls as around the parent's; asker answers
	// foreground sub-agents' asks, backgroundAsker background ones' (hooks only).
	hooks                  *hooks.Runner
	asker, backgroundAsker permission.Asker
	// resultsDir returns where sub-agents save results too large for the model: the
	// parent's folder of the moment (it moves with a switch of session).
	resultsDir func() string
}

// addAgentTool adds the Agent tool to the pool. Each sub-agent gets fresh built-ins (its own
// shell and directory), filtered to a subset of this pool; background sub-agents are stopped
// by the pool's Close before its shell.
func (p *agentPool) addAgentTool(f *Factory, sc subAgentConfig) {
	mgr := agenttool.NewManager(p.shell)
	p.notices = mgr.Notices
	closeShell := p.close
	p.close = func() error {
		mgr.Close()
		return closeShell()
	}
	cfg := agenttool.Config{
		Definitions: sc.defs,
		Provider:    sc.choice.provider,
		Model:       sc.choice.model,
		ResolveModel: func(m string) string {
			if id, ok := modelAliases[m]; ok && sc.choice.name == "anthropic" {
				return id
			}
			return m
		},
		Permissions:     sc.perms,
		Asker:           sc.asker,
		BackgroundAsker: sc.backgroundAsker,
		Hooks:           sc.hooks,
		Tools:           func() []tool.Tool { return p.tools },
		NewTools: func(perms *agent.Permissions) ([]tool.Tool, func() string, func() error) {
			// Only the shell's tools hold per-agent state (the directory, background
			// commands); the other built-ins are shared.
			sh := bash.New(bash.Options{Permissions: perms.Context, Cwd: p.cwd(), Sandbox: p.sandbox, Groups: shellGroups()})
			return sh.Tools(), sh.Cwd, sh.Close
		},
		Files:      p.env.Files,
		ResultsDir: sc.resultsDir,
		Cwd:        p.cwd,
		Bus:        sc.bus,
		System: func(ctx context.Context, def *agentdef.Definition, ts []tool.Tool) ([]llm.SystemBlock, error) {
			env := sc.env
			env.Base, env.Append = def.Prompt, ""
			env.Mode = agenttool.ChildMode(sc.perms.Context(), def.PermissionMode)
			return systemPrompt(ctx, ts, env)
		},
		NewTranscript:  sc.store,
		Manager:        mgr,
		MaxTurns:       sc.maxTurns,
		MaxConcurrency: envInt(f, "REINS_MAX_TOOL_USE_CONCURRENCY"),
	}
	p.tools = tools.Assemble(sc.perms.Context(), append(p.base, agenttool.New(cfg)), nil, f.Getenv)
}
