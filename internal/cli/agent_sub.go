package cli

import (
	"fmt"

	"github.com/reinsdev/reins/agentdef"
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
