// Package shared holds what the agent's three modes (-p, the SDK protocol, the chat) share:
// the root command's flags as [Options], and the session they assemble ([NewSession]).
package shared

import (
	"github.com/reinsdev/reins/internal/cli/cmdutil"
)

// Options are the root command's flags: how to run the agent. The root command fills them;
// cmd/agent's run picks the mode, and each mode reads them.
type Options struct {
	// Factory is the process environment the agent runs in.
	Factory *cmdutil.Factory
	// Args are the arguments after the flags: the prompt's words.
	Args []string
	// Chat is set by the interactive mode: it keeps file checkpoints for /rewind.
	Chat               bool
	Perm               cmdutil.PermFlags
	Worktree           WorktreeFlag
	MCP                cmdutil.MCPFlags
	Print              bool
	OutputFormat       string
	Model              string
	Provider           string
	MaxTurns           int
	AppendSystemPrompt string
	ContinueLast       bool
	Resume             string
	Verbose            bool
	Agents             string
	PluginDirs         []string
	// InitPlugins are the plugin folders of the initialize request read at launch
	// (--await-initialize).
	InitPlugins []string
	Hooks       HookOptions
	SDK         SDKFlags
}
