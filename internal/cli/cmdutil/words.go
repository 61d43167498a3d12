package cmdutil

import (
	"fmt"
	"strings"

	"github.com/reinsdev/reins/permission"
)

// Text output is for people: these functions say in words what the JSON output says in
// fields.

// SourceWords names where a rule, directory or mode lives, as a person knows the place.
func SourceWords(s permission.Source) string {
	switch s {
	case permission.SourceUser:
		return "your user settings (~/.reins/settings.json)"
	case permission.SourceProject:
		return "the project's shared settings (.reins/settings.json)"
	case permission.SourceLocal:
		return "your local project settings (.reins/settings.local.json)"
	case permission.SourceFlag:
		return "the --settings file"
	case permission.SourcePolicy:
		return "the managed policy settings"
	case permission.SourceCLIArg:
		return "the command line"
	case permission.SourceCommand:
		return "a slash command's allowed-tools, for its turn"
	case permission.SourceSession:
		return "this session only"
	}
	return s.String()
}

// ReasonWords says why a decision was made.
func ReasonWords(r *permission.Reason) string {
	if r == nil {
		return ""
	}
	switch r.Type {
	case permission.ReasonRule:
		if r.Rule != nil {
			return fmt.Sprintf("the %s rule %s from %s", r.Rule.Behavior, r.Rule.Value.String(), OriginWords(r.Rule.Source, r.Rule.Origin))
		}
	case permission.ReasonMode:
		return fmt.Sprintf("the permission mode is %s", r.Mode)
	case permission.ReasonHook:
		return "a hook decided: " + r.Detail
	case permission.ReasonClassifier:
		return "the auto-mode classifier decided: " + r.Detail
	case permission.ReasonPermissionPromptTool:
		return "the permission prompt tool decided: " + r.Detail
	case permission.ReasonAsyncAgent:
		return "a background agent cannot ask: " + r.Detail
	case permission.ReasonSafetyCheck:
		return "a safety check: " + r.Detail
	}
	if r.Detail != "" {
		return r.Detail
	}
	return string(r.Type)
}

// UpdateWords says what accepting a suggested update would do.
func UpdateWords(u permission.Update) string {
	where := SourceWords(u.Destination)
	switch u.Type {
	case permission.AddRules, permission.ReplaceRules, permission.RemoveRules:
		rs := make([]string, len(u.Rules))
		for i, r := range u.Rules {
			rs[i] = r.String()
		}
		rules := strings.Join(rs, ", ")
		switch u.Type {
		case permission.AddRules:
			if u.Destination == permission.SourceSession {
				return fmt.Sprintf("%s %s for this session", u.Behavior, rules)
			}
			return fmt.Sprintf("%s %s, saved in %s", u.Behavior, rules, where)
		case permission.ReplaceRules:
			return fmt.Sprintf("make the %s rules of %s: %s", u.Behavior, where, rules)
		default:
			return fmt.Sprintf("remove the %s rules %s from %s", u.Behavior, rules, where)
		}
	case permission.SetMode:
		if u.Destination == permission.SourceSession {
			return fmt.Sprintf("switch to %s mode for this session", u.Mode)
		}
		return fmt.Sprintf("switch to %s mode, saved in %s", u.Mode, where)
	case permission.AddDirectories:
		return fmt.Sprintf("add %s as a working directory (%s)", strings.Join(u.Directories, ", "), where)
	case permission.RemoveDirectories:
		return fmt.Sprintf("remove %s from the working directories (%s)", strings.Join(u.Directories, ", "), where)
	}
	return fmt.Sprintf("%s %s (%s)", u.Type, strings.Join(u.Directories, ", "), where)
}

// OriginWords says where a rule was written: the source, and the file position or flag.
func OriginWords(s permission.Source, o permission.Origin) string {
	switch {
	case o.File != "":
		return fmt.Sprintf("%s at %s", SourceWords(s), o)
	case o.Flag != "":
		return o.Flag
	}
	return SourceWords(s)
}
