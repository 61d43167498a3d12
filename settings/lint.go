package settings

import (
	"strings"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/posjson"
)

// builtinToolNames are the tool names rules are written for. A rule naming one of them in
// another case ("BASH", "Webfetch") is valid syntax and matches nothing.
var builtinToolNames = []string{
	"Agent", "AskUserQuestion", "Bash", "BashOutput", "Edit", "EnterPlanMode", "ExitPlanMode",
	"Glob", "Grep", "KillShell", "LS", "MultiEdit", "NotebookEdit", "NotebookRead", "Read", "Skill",
	"SlashCommand", "Task", "TaskOutput", "TaskStop", "TodoWrite", "ToolSearch", "WebFetch",
	"WebSearch", "Write",
}

// lintRule looks at a valid rule for the mistakes that make it match (almost) nothing as
// written, and returns a hint with the likely intent, or "". Such a rule still loads: it is
// what the user wrote, and a warning is enough to catch the typo.
func lintRule(s string) string {
	v := permission.ParseRule(s)
	if !permission.IsMCPName(v.Tool) {
		for _, name := range builtinToolNames {
			if v.Tool != name && strings.EqualFold(v.Tool, name) {
				fixed := v
				fixed.Tool = name
				return "names no tool and will never match; did you mean " + posjson.Quote(fixed.String()) + "?"
			}
		}
	}
	if v.Tool != "Bash" || v.Content == "" {
		return ""
	}
	if p, ok := strings.CutSuffix(v.Content, ":*"); ok {
		if t := strings.TrimSpace(p); t != p && t != "" {
			// The prefix is compared with its spaces: "rm :*" wants "rm  x" (two spaces) and
			// never sees "rm -rf x".
			return "will not match as written: the spaces around the prefix are part of it; did you mean " +
				posjson.Quote("Bash("+t+":*)") + "?"
		}
	}
	return ""
}
