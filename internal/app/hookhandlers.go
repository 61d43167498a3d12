package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/hooks"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/settings"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/tools/bash"
	"github.com/reinsdev/reins/tools/workflow"
)

// Default timeouts of the hook types that have their own in Claude Code: a model's judgement
// takes longer than a command's check.
const (
	promptHookTimeout = 30 * time.Second
	agentHookTimeout  = 60 * time.Second
	// AgentHookMaxTurns bounds an agent hook's sub-agent: it looks, then answers.
	AgentHookMaxTurns = 20
)

// agentHookTools are what an agent hook's sub-agent may use when the hook names none: tools
// that read and change nothing.
var agentHookTools = []string{"Read", "Grep", "Glob"}

// agentHookRefused are the tools an agent hook's sub-agent never gets, whatever the hook
// names: it cannot start agents, ask a person, change the mode or leave its directory.
var agentHookRefused = []string{"Agent", "Task", "AskUserQuestion", "EnterPlanMode", "ExitPlanMode", "EnterWorktree", "ExitWorktree", "SlashCommand", "Skill"}

// hookDeps are what the handlers of a session's hooks reach when they run: the App, whose
// provider, pool and MCP servers exist by the first event, though not when the runner is built.
type hookDeps struct{ a *App }

// hookHandler is the handler of a hook entry; nil for a command hook, which the runner runs in
// a shell itself.
func (d hookDeps) handler(e settings.HookEntry, policy hooks.HTTPPolicy) hooks.Handler {
	switch e.Type {
	case "http":
		hs := make([]hooks.Header, len(e.Headers))
		for i, h := range e.Headers {
			hs[i] = hooks.Header{Name: h.Name, Value: h.Value}
		}
		var getenv func(string) string
		if d.a != nil {
			getenv = d.a.opts.Getenv
		}
		return &hooks.HTTP{URL: e.URL, Headers: hs, AllowedEnvVars: e.AllowedEnvVars, Policy: policy, Getenv: getenv}
	case "mcp_tool":
		return &hooks.MCPTool{Server: e.Server, Tool: e.Tool, Input: e.Input, Caller: mcpHookCaller(d)}
	case "prompt", "agent":
		return &hooks.Model{Agent: e.Type == "agent", Prompt: e.Prompt, Model: e.Model, Tools: e.Tools, Judge: hookJudge(d)}
	}
	return nil
}

// hookTimeout is a hook's timeout: its own, else its type's default.
func hookTimeout(e settings.HookEntry) time.Duration {
	if e.TimeoutSeconds > 0 {
		return time.Duration(e.TimeoutSeconds * float64(time.Second))
	}
	switch e.Type {
	case "prompt":
		return promptHookTimeout
	case "agent":
		return agentHookTimeout
	}
	return 0
}

// HTTPHookPolicy is what the settings allow http hooks (allowedHttpHookUrls,
// httpHookAllowedEnvVars).
func HTTPHookPolicy(l *settings.Loaded) hooks.HTTPPolicy {
	var p hooks.HTTPPolicy
	if l == nil {
		return p
	}
	urls, vars := l.HTTPHookPolicy()
	for _, u := range urls {
		p.URLs = append(p.URLs, hooks.AllowList{Values: u.Values, Origin: u.Origin()})
	}
	for _, v := range vars {
		p.EnvVars = append(p.EnvVars, hooks.AllowList{Values: v.Values, Origin: v.Origin()})
	}
	return p
}

// mcpHookCaller calls the session's MCP servers for mcp_tool hooks.
type mcpHookCaller struct{ a *App }

func (c mcpHookCaller) CallHookTool(ctx context.Context, server, name string, args map[string]any) (string, bool, error) {
	if c.a == nil || c.a.Ext.MCP == nil || c.a.Ext.MCP.Manager == nil {
		return "", false, fmt.Errorf("no MCP server %q is running in this session", server)
	}
	return c.a.Ext.MCP.Manager.CallHookTool(ctx, server, name, args)
}

// hookJudge answers prompt hooks with one reply of the small, fast model and agent hooks with
// a sub-agent of read-only tools.
type hookJudge struct{ a *App }

func (j hookJudge) Judge(ctx context.Context, req hooks.JudgeRequest) (string, error) {
	a := j.a
	if a == nil || a.Provider == nil || a.Provider.LLM == nil {
		return "", errors.New("no model provider is configured")
	}
	if req.Agent {
		return j.agent(ctx, req)
	}
	model := a.Provider.SmallModel(a.Settings.Loaded, a.opts.Getenv)
	if req.Model != "" {
		model = a.Provider.ResolveModel(req.Model)
	}
	resp, err := a.Provider.LLM.Stream(ctx, &llm.Request{Model: model, System: llm.SystemText(hooks.JudgeInstructions),
		Messages: []llm.Message{llm.UserText(req.Prompt)}, MaxTokens: 1024}, nil)
	if err != nil {
		return "", err
	}
	return resp.Message.Text(), nil
}

// agent runs an agent hook's sub-agent: the hook's tools (read-only ones by default) decided
// in dontAsk with no one to ask, no hooks of its own, its turns bounded.
func (j hookJudge) agent(ctx context.Context, req hooks.JudgeRequest) (string, error) {
	a := j.a
	names := req.Tools
	if names == nil {
		names = agentHookTools
	}
	perms := a.Permissions.Derive(func(pc *permission.Context) *permission.Context {
		return pc.WithMode(permission.ModeDontAsk).WithAvoidPrompts(true)
	})
	ts, closeShell := a.hookAgentTools(names, perms)
	defer closeShell()
	env := &tool.Env{Files: a.Pool.Env.Files, Values: map[any]any{}}
	workflow.MarkSubAgent(env)
	model := a.Provider.Model
	if req.Model != "" {
		model = a.Provider.ResolveModel(req.Model)
	}
	sub := &agent.Agent{
		Provider:    a.Provider.LLM,
		Model:       model,
		System:      llm.SystemText(hooks.JudgeInstructions + "\nYou may use your tools to look at the project before you answer; they change nothing."),
		Tools:       ts,
		MaxTurns:    AgentHookMaxTurns,
		Engine:      &permission.Engine{PolicyVersion: a.Settings.PolicyVersion},
		Permissions: perms,
		Env:         env,
		Cwd:         a.Pool.Cwd,
		Audit:       a.auditor(),
		SubAgent:    true,
	}
	res, err := sub.Run(ctx, nil, llm.UserText(req.Prompt))
	switch {
	case err != nil:
		return "", err
	case res.IsError:
		return "", fmt.Errorf("the hook's agent did not finish (%s): %v", res.Subtype, res.Err)
	}
	return res.Text, nil
}

// hookAgentTools picks an agent hook's tools from the session's pool; the shell's tools come
// from a fresh shell of their own, closed with the judgement.
func (a *App) hookAgentTools(names []string, perms *agent.Permissions) ([]tool.Tool, func()) {
	var out []tool.Tool
	var sh *bash.Shell
	for _, t := range a.Pool.Tools {
		if !slices.Contains(names, t.Name()) || slices.Contains(agentHookRefused, t.Name()) {
			continue
		}
		switch t.Name() {
		case "Bash", "TaskOutput", "TaskStop":
			if sh == nil {
				p := a.Pool
				sh = bash.New(bash.Options{Permissions: perms.Context, Cwd: p.Cwd(), Sandbox: p.sandbox, Groups: p.groups, Env: p.environ})
			}
			for _, st := range sh.Tools() {
				if st.Name() == t.Name() {
					out = append(out, st)
				}
			}
			continue
		}
		out = append(out, t)
	}
	return out, func() {
		if sh != nil {
			sh.Close()
		}
	}
}
