package app

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/reinsdev/reins/agentdef"
	"github.com/reinsdev/reins/commands"
	"github.com/reinsdev/reins/hooks"
	"github.com/reinsdev/reins/mcp/client"
	"github.com/reinsdev/reins/plugins"
	"github.com/reinsdev/reins/settings"
	"github.com/reinsdev/reins/skills"
)

// LoadPlugins loads the plugins of a session: the --plugin-dir folders, then the plugins the
// settings enable that are on disk. A plugin that cannot be read stops the session with the
// file's position (an --plugin-dir that is not a plugin is a UsageError); an enabled plugin
// that is not on disk is a warning.
func LoadPlugins(ctx context.Context, s *Settings, dirs []string) (*plugins.Set, []string, error) {
	var enabled []plugins.Enabled
	if s.Loaded != nil {
		for _, e := range s.Loaded.EnabledPlugins() {
			enabled = append(enabled, plugins.Enabled{Key: e.Key, File: e.File})
		}
	}
	set := plugins.LoadAll(ctx, dirs, enabled, s.Options.Home, s.Options.ConfigDir)
	if len(set.Errors) > 0 {
		err := fmt.Errorf("plugin not loaded: %w", errors.Join(set.Errors...))
		if len(dirs) > 0 {
			return nil, nil, &UsageError{Err: err}
		}
		return nil, nil, err
	}
	return set, set.Missing, nil
}

// pluginAgentDirs are the folders of the plugins' sub-agents.
func pluginAgentDirs(ps *plugins.Set) []agentdef.Dir {
	var out []agentdef.Dir
	for _, p := range pluginsOf(ps) {
		out = append(out, p.AgentDirs()...)
	}
	return out
}

func pluginsOf(ps *plugins.Set) []*plugins.Plugin {
	if ps == nil {
		return nil
	}
	return ps.Plugins
}

// LoadSkills reads the skills of the project, the user and the plugins. An untrusted
// project's skills, and every plugin's skills there, load without their allowed-tools.
// Skills that cannot be used are warnings with their positions.
func LoadSkills(ctx context.Context, s *Settings, ps *plugins.Set) (*skills.Set, []string) {
	roots := skills.Roots(s.Options.Home, s.Options.ConfigDir, s.Context.OriginalCwd())
	for _, p := range pluginsOf(ps) {
		roots = append(roots, p.SkillRoots()...)
	}
	set := skills.Load(ctx, roots, s.Trusted)
	var warnings []string
	for _, err := range set.Errors {
		warnings = append(warnings, fmt.Sprintf("skill skipped: %v", err))
	}
	return set, warnings
}

// PluginHooks reads the plugins' hooks, each marked as the project's hooks would be (trust,
// disableAllHooks, allowManagedHooksOnly). A hooks file that cannot be read stops the
// session, as a settings file's would.
func PluginHooks(ctx context.Context, s *Settings, ps *plugins.Set) ([]settings.HookEntry, []string, error) {
	var out []settings.HookEntry
	var warnings []string
	for _, p := range pluginsOf(ps) {
		hs, files, ws, err := p.Hooks(ctx)
		if err != nil {
			return nil, nil, fmt.Errorf("plugin %s: %w", p.Name, err)
		}
		for _, w := range ws {
			warnings = append(warnings, w.String())
		}
		for i, h := range hs {
			out = append(out, s.Loaded.PluginHooks([]settings.HookEntry{h}, files[i], s.Trusted)...)
		}
	}
	return out, warnings, nil
}

// PluginServers reads the plugins' MCP servers: project servers named plugin_<plugin>_<name>.
func PluginServers(ctx context.Context, ps *plugins.Set) ([]client.ServerConfig, error) {
	var out []client.ServerConfig
	for _, p := range pluginsOf(ps) {
		cs, err := p.MCPServers(ctx)
		if err != nil {
			return nil, fmt.Errorf("plugin %s: %w", p.Name, err)
		}
		out = append(out, cs...)
	}
	return out, nil
}

// hookOf is a settings hook entry as the runner takes it: a command hook, or the handler of
// its type (http, mcp_tool, prompt, agent), which reaches the session through deps. A plugin's
// command hook runs with CLAUDE_PLUGIN_ROOT set to the plugin's folder: the runner's
// environment is the session's, so the variable is exported by the command line itself, the
// path quoted for the shell.
func hookOf(e settings.HookEntry, deps hookDeps, policy hooks.HTTPPolicy) hooks.Hook {
	h := hooks.Hook{Event: hooks.Event(e.Event), Matcher: e.Matcher, Timeout: hookTimeout(e), Origin: e.Origin()}
	if h.Handler = deps.handler(e, policy); h.Handler != nil {
		return h
	}
	h.Command = e.Command
	if e.PluginRoot != "" {
		h.Command = "export CLAUDE_PLUGIN_ROOT=" + shellQuote(e.PluginRoot) + "; " + e.Command
	}
	return h
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// PluginCommandRoots are the plugins' command folders (and files) for the commands loader:
// their commands are named "<plugin>:<name>" and, as every part of a plugin, count as the
// project's (their allowed-tools wait for the project's trust).
func PluginCommandRoots(ps *plugins.Set) []commands.Root {
	var out []commands.Root
	for _, p := range pluginsOf(ps) {
		for _, r := range p.CommandRoots() {
			out = append(out, commands.Root{Path: r, Source: commands.PluginSource(p.Name)})
		}
	}
	return out
}
