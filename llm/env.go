package llm

import "strings"

// EnvTrue reads a switch variable the way Claude Code does: 1, true, yes or on, in any case,
// is on; anything else is off.
func EnvTrue(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}
