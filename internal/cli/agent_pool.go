package cli

import (
	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/tools"
	"github.com/reinsdev/reins/tools/bash"
	"github.com/reinsdev/reins/tools/web"
)

// newAgentPool builds the tools of a run: every built-in, minus the ones a tool-wide deny rule
// removes, in Claude Code's order (tools.Assemble). The Shell behind Bash is closed by
// agentPool.Close.
func newAgentPool(f *Factory, pc *permission.Context, perms *agent.Permissions, summarizer web.Summarizer) *agentPool {
	return newToolPool(f, pc, perms.Context, summarizer)
}

// newToolPool is newAgentPool for any owner of the session's permission context (the agent,
// an MCP server connection): perms returns the current one.
func newToolPool(f *Factory, pc *permission.Context, perms func() *permission.Context, summarizer web.Summarizer) *agentPool {
	sh := bash.New(bash.Options{Permissions: perms})
	base := tools.Base(tools.Options{Shell: sh, Getenv: f.Getenv, Web: web.Options{Summarizer: summarizer}})
	return &agentPool{
		tools: tools.Assemble(pc, base, nil, f.Getenv),
		base:  base,
		shell: sh,
		env:   &tool.Env{Files: tool.NewFileState(), Values: map[any]any{}},
		cwd:   sh.Cwd,
		close: sh.Close,
	}
}
