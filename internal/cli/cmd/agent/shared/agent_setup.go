package shared

import (
	"context"

	"github.com/reinsdev/reins/internal/app"
	"github.com/reinsdev/reins/internal/cli/cmdutil"
	"github.com/reinsdev/reins/internal/sdkproto"
	"github.com/reinsdev/reins/tools"
	"github.com/reinsdev/reins/tools/bash"
)

// NewSession assembles the session the agent's flags ask for (app.New) and makes
// --permission-prompt-tool's tool its asker. The caller must Close it.
func NewSession(ctx context.Context, f *cmdutil.Factory, opts *Options) (*app.App, error) {
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
		f.Warn("the Bash tool is off: %v", err)
	}
	if err := promptToolAsker(f, a, opts); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

// appOptions turns the agent's flags and f's environment into app's options.
func appOptions(f *cmdutil.Factory, opts *Options) (app.Options, error) {
	so, err := opts.Perm.SettingsOptions(f)
	if err != nil {
		return app.Options{}, err
	}
	sf := &opts.SDK
	var confirm func([]string) bool
	if opts.Chat {
		confirm = confirmSecrets(f, f.In)
	}
	return app.Options{
		Worktree:           opts.Worktree.options(confirm),
		Cwd:                so.Cwd,
		Getenv:             f.Getenv,
		Settings:           so,
		Geteuid:            f.Geteuid,
		Executable:         f.Executable,
		MCP:                opts.MCP.Options(),
		Provider:           opts.Provider,
		Model:              opts.Model,
		FallbackModel:      sf.FallbackModel,
		Agents:             opts.Agents,
		PluginDirs:         opts.PluginDirs,
		InitializePlugins:  opts.InitPlugins,
		SystemPrompt:       sf.SystemPrompt,
		AppendSystemPrompt: opts.AppendSystemPrompt,
		Tools:              sf.toolNames(),
		JSONSchema:         sf.JSONSchema,
		MaxTurns:           opts.MaxTurns,
		MaxBudgetUSD:       sf.MaxBudgetUSD,
		MaxThinkingTokens:  sf.thinking(),
		Continue:           opts.ContinueLast,
		Resume:             opts.Resume,
		Fork:               sf.Fork,
		ResumeAt:           sf.ResumeAt,
		SessionID:          sf.SessionID,
		NoPersist:          sf.NoPersist,
		LateHooks:          sf.InputFormat == InputStreamJSON,
		FileCheckpointing:  fileCheckpointing(f, opts),
		ShellGroups:        f.ShellGroups(),
		HookGroups:         f.HookGroups(),
		Debug:              f.Debug,
		Report:             cmdutil.Reporter(f),
	}, nil
}

// fileCheckpointing: the chat keeps checkpoints for /rewind, as Claude Code's does; the SDK's
// enableFileCheckpointing reaches reins as CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING=true.
func fileCheckpointing(f *cmdutil.Factory, opts *Options) bool {
	return opts.Chat || opts.SDK.InputFormat == InputStreamJSON && f.Getenv("CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING") == "true"
}

// Checks is what an Asker needs to apply an answer.
func Checks(f *cmdutil.Factory, a *app.App) sdkproto.Checks {
	return sdkproto.Checks{
		Permissions: a.Permissions,
		Lookup:      a.Lookup,
		Log:         f.ErrOut,
	}
}

// promptToolAsker makes --permission-prompt-tool's tool (other than stdio) the agent's asker,
// behind the PermissionRequest hooks.
func promptToolAsker(f *cmdutil.Factory, a *app.App, opts *Options) error {
	name := opts.SDK.PromptTool
	if name == "" || name == PromptToolStdio {
		return nil
	}
	t := a.Lookup(name)
	if t == nil {
		return cmdutil.UsageErrorf("--permission-prompt-tool: no tool %q in the tool pool (tools: %v)", name, tools.Names(a.Agent.Tools))
	}
	a.Agent.Asker = a.WithHooks(&sdkproto.ToolAsker{Tool: t, Env: a.Pool.Env, Checks: Checks(f, a)})
	return nil
}
