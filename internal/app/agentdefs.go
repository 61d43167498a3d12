package app

import (
	"fmt"

	"github.com/reinsdev/reins/agentdef"
)

// LoadAgentDefs reads the agent definitions of a session with settings s: built-ins, the
// user's and the project's folders, then agentsJSON (--agents). A project that is not trusted
// may define agents but not choose their permission mode, as its settings may not choose the
// start mode. Files that cannot be used are returned as warnings with their positions; JSON
// that cannot be used is a UsageError.
//
// extra are more folders: the plugins' (pluginAgentDirs), whose agents are governed as the
// project's.
func LoadAgentDefs(s *Settings, agentsJSON string, extra ...agentdef.Dir) (*agentdef.Set, []string, error) {
	var flagDefs []*agentdef.Definition
	if agentsJSON != "" {
		defs, err := agentdef.ParseJSON("--agents", []byte(agentsJSON), agentdef.SourceFlag)
		if err != nil {
			return nil, nil, &UsageError{Err: err}
		}
		flagDefs = defs
	}
	dirs := append(agentdef.Dirs(s.Options.Home, s.Options.ConfigDir, s.Context.OriginalCwd()), extra...)
	set := agentdef.Load(dirs, flagDefs...)
	var warnings []string
	for _, err := range set.Errors {
		warnings = append(warnings, fmt.Sprintf("agent definition skipped: %v", err))
	}
	if !s.Trusted {
		for _, d := range set.All() {
			if (d.Source == agentdef.SourceProject || d.Source == agentdef.SourcePlugin) && d.PermissionMode != "" {
				warnings = append(warnings, fmt.Sprintf("%s: permissionMode %q ignored: the project is not trusted (run reins trust)", d.File, d.PermissionMode))
				d.PermissionMode = ""
			}
		}
	}
	return set, warnings, nil
}
