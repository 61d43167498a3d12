package app

import (
	"os"
	"strings"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/settings"
)

// settingsEnv applies the settings' env blocks (settings.Loaded.Env; the project's files only
// when trusted) to what a session reads and starts: the returned getenv sees them over base,
// and environ — the environment of Bash commands, hooks and stdio MCP servers — is the
// process's with them set. environ is nil when the settings set nothing, so that children
// inherit the process's environment as before.
func settingsEnv(s *Settings, base func(string) string) (getenv func(string) string, environ []string) {
	vars := s.Loaded.Env(s.Trusted)
	s.EnvVars = vars
	if len(vars) == 0 {
		return base, nil
	}
	set := make(map[string]string, len(vars))
	for _, v := range vars {
		set[v.Name] = v.Value
	}
	getenv = func(k string) string {
		if v, ok := set[k]; ok {
			return v
		}
		return base(k)
	}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if _, ok := set[name]; !ok {
			environ = append(environ, kv)
		}
	}
	for _, v := range vars {
		environ = append(environ, v.Name+"="+v.Value)
	}
	return getenv, environ
}

// ApplyEnv is base seen through the settings' env blocks, as a session in s's folder reads
// its environment; s.EnvVars then lists what was set and where.
func ApplyEnv(s *Settings, base func(string) string) func(string) string {
	getenv, _ := settingsEnv(s, base)
	return getenv
}

// UntrustedEnv are the variables the project's own files would set once it is trusted (and
// do not set before): what `reins doctor` warns of.
func UntrustedEnv(s *Settings) []settings.EnvVar {
	if s.Trusted {
		return nil
	}
	var out []settings.EnvVar
	for _, v := range s.Loaded.Env(true) {
		if v.Source == permission.SourceProject || v.Source == permission.SourceLocal {
			out = append(out, v)
		}
	}
	return out
}
