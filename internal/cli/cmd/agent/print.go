package agent

import "github.com/reinsdev/reins/internal/cli/cmdutil"

// listFlagHint explains a missing prompt that a list flag may have taken as rules.
func listFlagHint(pf cmdutil.PermFlags) string {
	if len(pf.Allowed)+len(pf.Disallowed) < 2 {
		return ""
	}
	return `; --allowedTools and --disallowedTools take every value up to the next flag, so end their list with "--" before the prompt`
}
