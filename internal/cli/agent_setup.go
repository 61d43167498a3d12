package cli

import (
	"context"

	"github.com/reinsdev/reins/agentdef"
	"github.com/reinsdev/reins/commands"
	"github.com/reinsdev/reins/internal/app"
	"github.com/reinsdev/reins/internal/sdkproto"
	"github.com/reinsdev/reins/plugins"
	"github.com/reinsdev/reins/skills"
	"github.com/reinsdev/reins/tools"
	"github.com/reinsdev/reins/tools/bash"
)

// newSession assembles the session the agent's flags ask for (app.New) and makes
// --permission-prompt-tool's tool its asker. The caller must Close it.
func newSession(ctx context.Context, f *Factory, opts *agentOptions) (*app.App, error) {
	o, err := appOptions(f, opts)
	if err != nil {
		return nil, err
	}
	a, err := app.New(ctx, o)
	if err != nil {
		return nil, err
	}
	// Without Git Bash on Windows the Bash tool is off (not offered to the model, and a call
	// of it fails saying so): say why once, at the start.
	if _, err := bash.FindShell(); err != nil {
		f.warn("the Bash tool is off: %v", err)
	}
	if err := promptToolAsker(f, a, opts); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

// appOptions turns the agent's flags and f's environment into app's options.
func appOptions(f *Factory, opts *agentOptions) (app.Options, error) {
	so, err := opts.perm.settingsOptions(f)
	if err != nil {
		return app.Options{}, err
	}
	sf := &opts.sdk
	var confirm func([]string) bool
	if opts.chat {
		confirm = confirmSecrets(f, f.In)
	}
	return app.Options{
		Worktree:           opts.worktree.options(confirm),
		Cwd:                so.Cwd,
		Getenv:             f.Getenv,
		Settings:           so,
		Geteuid:            func() int { return geteuid() },
		Executable:         f.Executable,
		MCP:                opts.mcp.options(),
		Provider:           opts.provider,
		Model:              opts.model,
		FallbackModel:      sf.fallbackModel,
		Agents:             opts.agents,
		PluginDirs:         opts.pluginDirs,
		InitializePlugins:  opts.initPlugins,
		SystemPrompt:       sf.systemPrompt,
		AppendSystemPrompt: opts.appendSystemPrompt,
		Tools:              sf.toolNames(),
		JSONSchema:         sf.jsonSchema,
		MaxTurns:           opts.maxTurns,
		MaxBudgetUSD:       sf.maxBudgetUSD,
		MaxThinkingTokens:  sf.thinking(),
		Continue:           opts.continueLast,
		Resume:             opts.resume,
		Fork:               sf.fork,
		ResumeAt:           sf.resumeAt,
		SessionID:          sf.sessionID,
		NoPersist:          sf.noPersist,
		LateHooks:          sf.inputFormat == inputStreamJSON,
		FileCheckpointing:  fileCheckpointing(f, opts),
		ShellGroups:        shellGroups(),
		HookGroups:         hookGroups(),
		Debug:              f.Debug,
		Report:             reporter(f),
	}, nil
}

// fileCheckpointing: the chat keeps checkpoints for /rewind, as Claude Code's does; the SDK's
// enableFileCheckpointing reaches reins as CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING=true.
func fileCheckpointing(f *Factory, opts *agentOptions) bool {
	return opts.chat || opts.sdk.inputFormat == inputStreamJSON && f.Getenv("CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING") == "true"
}

// checks is what an Asker needs to apply an answer.
func checks(f *Factory, a *app.App) sdkproto.Checks {
	return sdkproto.Checks{
		Permissions: a.Permissions,
		Lookup:      a.Lookup,
		Log:         f.ErrOut,
	}
}

// initInfo is what system/init reports.
func initInfo(f *Factory, a *app.App) sdkproto.InitInfo {
	return sdkproto.InitInfo{Cwd: a.Cwd, Tools: tools.Names(a.Agent.Tools), Model: a.Provider.Model, Provider: a.Provider.Name,
		PermissionMode: string(a.Permissions.Context().Mode()), APIKeySource: apiKeySource(a.Provider), Version: reinsVersion(),
		MCPServers: mcpStatuses(a.Ext.MCP), Agents: agentNames(a.Ext.Agents), Commands: slashCommands(a.Ext.Commands),
		Skills: skillNames(a.Ext.Skills), Plugins: pluginInfos(a.Ext.Plugins)}
}

// slashCommands are the custom slash commands as the SDK lists them.
func slashCommands(set *commands.Set) []sdkproto.SlashCommand {
	var out []sdkproto.SlashCommand
	for _, c := range set.All() {
		out = append(out, sdkproto.SlashCommand{Name: c.Name, Description: c.Description + " (" + string(c.Source) + ")", ArgumentHint: c.ArgumentHint})
	}
	return out
}

func agentNames(defs *agentdef.Set) []string {
	var out []string
	for _, d := range defs.All() {
		out = append(out, d.Name)
	}
	return out
}

func skillNames(set *skills.Set) []string {
	var out []string
	for _, s := range set.All() {
		out = append(out, s.Name)
	}
	return out
}

func pluginInfos(set *plugins.Set) []sdkproto.Plugin {
	var out []sdkproto.Plugin
	if set != nil {
		for _, p := range set.Plugins {
			out = append(out, sdkproto.Plugin{Name: p.Name, Path: p.Dir})
		}
	}
	return out
}

// promptToolAsker makes --permission-prompt-tool's tool (other than stdio) the agent's asker,
// behind the PermissionRequest hooks.
func promptToolAsker(f *Factory, a *app.App, opts *agentOptions) error {
	name := opts.sdk.promptTool
	if name == "" || name == promptToolStdio {
		return nil
	}
	t := a.Lookup(name)
	if t == nil {
		return usageErrorf("--permission-prompt-tool: no tool %q in the tool pool (tools: %v)", name, tools.Names(a.Agent.Tools))
	}
	a.Agent.Asker = a.WithHooks(&sdkproto.ToolAsker{Tool: t, Env: a.Pool.Env, Checks: checks(f, a)})
	return nil
}
