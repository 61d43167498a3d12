package cmdutil

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/reinsdev/reins/internal/app"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/settings"
	"github.com/reinsdev/reins/skills"
	"github.com/reinsdev/reins/tool"
)

func UnconnectedMCPTool(name string) tool.Tool {
	return tool.Build(tool.Def[map[string]any]{
		Name:      name,
		RawSchema: json.RawMessage(`{"type":"object"}`),
		MCP:       true,
		Call: func(context.Context, map[string]any, *tool.Env) (tool.Result, error) {
			return tool.Result{}, errors.New("MCP server is not connected")
		},
	})
}

// Unloaded calls fn with each entry of the report that was not loaded (an untrusted project's
// lists, invalid rules, rules managed policy shuts out, missing directories) and where it is.
func Unloaded(rep *settings.Report, fn func(where string, e settings.EntryReport)) {
	if rep == nil {
		return
	}
	for _, f := range rep.Files {
		for _, e := range f.Entries {
			if e.Status == settings.StatusLoaded {
				continue
			}
			where := f.Path
			if e.Line > 0 {
				where = fmt.Sprintf("%s:%d:%d", f.Path, e.Line, e.Col)
			}
			fn(where, e)
		}
	}
}

// ShadowedBy finds a deny or ask rule among rules that always wins over the allow rule r.
func ShadowedBy(rules []permission.Rule, r permission.Rule) (permission.Rule, bool) {
	if r.Behavior != permission.Allow {
		return permission.Rule{}, false
	}
	for _, o := range rules {
		if (o.Behavior == permission.Deny || o.Behavior == permission.Ask) && Shadows(o.Value, r.Value) {
			return o, true
		}
	}
	return permission.Rule{}, false
}

// CatalogSkills are the skills a session here has, for the catalog's Skill tool: the user's,
// the project's and those of the plugins enabled on disk. What cannot be read is left out
// (reins -p warns of it); a plugin that cannot be loaded brings none.
func CatalogSkills(env *PermEnv) *skills.Set {
	ctx := context.Background()
	ps, _, err := app.LoadPlugins(ctx, env, nil)
	if err != nil {
		ps = nil
	}
	set, _ := app.LoadSkills(ctx, env, ps)
	return set
}

// Shadows reports whether a deny or ask rule b always wins over the allow rule a: every call
// a allows, b also matches. It recognises the common forms (tool-wide rules, Bash prefixes,
// directory path rules) and otherwise says no: a missed shadow is only a missed hint.
func Shadows(b, a permission.RuleValue) bool {
	if b.Tool != a.Tool {
		return false
	}
	if b.Content == "" || b.Content == a.Content {
		return true
	}
	if a.Content == "" {
		return false
	}
	switch b.Tool {
	case "Bash":
		prefix, ok := strings.CutSuffix(b.Content, ":*")
		if !ok {
			prefix, ok = strings.CutSuffix(b.Content, " *")
		}
		if !ok || strings.ContainsAny(prefix, "*") {
			return false
		}
		body := strings.TrimSuffix(strings.TrimSuffix(a.Content, ":*"), " *")
		return body == prefix || strings.HasPrefix(body, prefix+" ")
	case "Read", "Edit":
		dir, ok := strings.CutSuffix(b.Content, "/**")
		if !ok || strings.ContainsAny(dir, "*?[") {
			return false
		}
		return a.Content == dir || strings.HasPrefix(a.Content, dir+"/")
	}
	return false
}
