package shared

import (
	"github.com/reinsdev/reins/internal/cli/cmdutil"
)

type Options struct {
	// chat is set by the interactive mode: it keeps file checkpoints for /rewind.
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
	// initPlugins are the plugin folders of the initialize request read at launch
	// (--await-initialize).
	InitPlugins []string
	Hooks       HookOptions
	SDK         SDKFlags
}
