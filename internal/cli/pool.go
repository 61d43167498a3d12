package cli

import (
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/tools"
	"github.com/reinsdev/reins/tools/bash"
)

// basePool is every built-in tool, for commands that look tools up by name without running
// them. The shell it creates never starts a process, so it needs no Close.
func basePool(f *Factory, pc *permission.Context) []tool.Tool {
	return tools.Base(tools.Options{
		Getenv: f.Getenv,
		Bash:   bash.Options{Cwd: pc.OriginalCwd(), Permissions: func() *permission.Context { return pc }},
	})
}
