package settings

import (
	"fmt"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/posjson"
)

// EnvEntry is one variable of a settings file's env block, at the position of its name.
type EnvEntry struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	Line  int    `json:"line"`
	Col   int    `json:"col"`
}

// parseEnv reads the env key: an object of variable names to string values, as in Claude
// Code. Anything else is an error at its position: a variable that silently went missing (a
// proxy, a telemetry endpoint) would run the session differently from what was written. A
// name written twice keeps its last value, as JSON.parse does.
func parseEnv(root *posjson.Value, at func(off int, format string, args ...any) *ParseError, pos func(off int) (int, int)) ([]EnvEntry, error) {
	v := root.Get("env")
	if v == nil || v.Kind == posjson.Null {
		return nil, nil
	}
	if v.Kind != posjson.Object {
		return nil, at(v.Off, "env must be an object of variable names to strings, not %s", v.Kind)
	}
	var out []EnvEntry
	index := map[string]int{}
	for _, m := range v.Members {
		if why := badEnvName(m.Key); why != "" {
			return nil, at(m.Off, "env: variable name %q: %s", m.Key, why)
		}
		if m.Val.Kind != posjson.String {
			return nil, at(m.Val.Off, "env.%s must be a string, not %s", m.Key, m.Val.Kind)
		}
		line, col := pos(m.Off)
		e := EnvEntry{Name: m.Key, Value: m.Val.Str, Line: line, Col: col}
		if i, ok := index[m.Key]; ok {
			out[i] = e
			continue
		}
		index[m.Key] = len(out)
		out = append(out, e)
	}
	return out, nil
}

// badEnvName says what is wrong with a variable name: a portable name is letters, digits and
// underscores, not starting with a digit. Anything else ("=", a NUL, a space) would change
// another variable or none when put into an environment.
func badEnvName(name string) string {
	if name == "" {
		return "must not be empty"
	}
	for i, r := range name {
		switch {
		case r == '_', r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return "must be letters, digits and underscores, not starting with a digit"
		}
	}
	return ""
}

// EnvVar is a variable the settings set for the session, with the file and line that set it.
type EnvVar struct {
	Name   string            `json:"name"`
	Value  string            `json:"value"`
	Source permission.Source `json:"source"`
	File   string            `json:"file"`
	Line   int               `json:"line"`
	Col    int               `json:"col"`
}

// Origin is where the variable was set, file:line:col.
func (v EnvVar) Origin() string { return fmt.Sprintf("%s:%d:%d", v.File, v.Line, v.Col) }

// Env merges the env blocks of every source: a later source wins per variable (user, project,
// local, flag, then policy, so managed settings win over all), in the order the variables
// were first set. With trusted false, the project's shared and local files — which arrive
// with a repository — set nothing: a repository must not choose LD_PRELOAD, PATH, BASH_ENV or
// the API's base URL before the person trusted it.
func (l *Loaded) Env(trusted bool) []EnvVar {
	var out []EnvVar
	index := map[string]int{}
	for _, f := range l.Files {
		if !trusted && WaitsForTrust(f.Source) {
			continue
		}
		for _, e := range f.Settings.Env {
			v := EnvVar{Name: e.Name, Value: e.Value, Source: f.Source, File: f.Path, Line: e.Line, Col: e.Col}
			if i, ok := index[e.Name]; ok {
				out[i] = v
				continue
			}
			index[e.Name] = len(out)
			out = append(out, v)
		}
	}
	return out
}
