// Package plugins reads local plugins: folders with a .claude-plugin/plugin.json manifest
// that bring slash commands, sub-agents, skills, hooks and MCP servers, laid out as Claude
// Code's plugins are (commands/, agents/, skills/, hooks/hooks.json, .mcp.json at the
// plugin's root, plus any paths the manifest adds).
//
// A plugin grants nothing by being loaded. What it brings is governed as the project's own
// configuration, whoever enabled it: its hooks run only where the project's hooks would (a
// trusted project; disableAllHooks and allowManagedHooksOnly apply), its MCP servers are
// project servers (they need the project's trust and an approval, and the managed lists
// apply), its skills' allowed-tools apply only in a trusted project, and its agents may not
// choose their permission mode in an untrusted one. This package reads and exposes the parts;
// the session (internal/app) applies those rules with the same code as for hand-written
// configuration.
//
// Plugins come from --plugin-dir folders and from the enabledPlugins setting, for plugins
// already on disk (Find); nothing is fetched. Every problem is an error naming the file, and
// for plugin.json its line and column.
package plugins

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/reinsdev/reins/agentdef"
	"github.com/reinsdev/reins/boundedfile"
	"github.com/reinsdev/reins/mcp/client"
	"github.com/reinsdev/reins/posjson"
	"github.com/reinsdev/reins/settings"
	"github.com/reinsdev/reins/skills"
)

// ManifestPath is where a plugin's manifest is, relative to its folder.
const ManifestPath = ".claude-plugin/plugin.json"

// MaxPlugins bounds the plugins of a session.
const MaxPlugins = 64

// Plugin is a loaded plugin: its manifest, its folder, and where it was enabled.
type Plugin struct {
	Manifest
	// Dir is the plugin's folder, absolute.
	Dir string
	// From says how it was enabled: "--plugin-dir" or "enabledPlugins in <file>".
	From string
}

// Load reads the plugin in dir.
func Load(ctx context.Context, dir, from string) (*Plugin, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("plugin folder %s: %w", dir, err)
	}
	file := filepath.Join(abs, ManifestPath)
	data, err := boundedfile.Read(ctx, file, boundedfile.Limits{MaxBytes: MaxManifestSize, Kind: "plugin manifest"})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s is not a plugin: it has no %s", abs, ManifestPath)
	}
	if err != nil {
		return nil, err
	}
	m, err := ParseManifest(file, data)
	if err != nil {
		return nil, err
	}
	return &Plugin{Manifest: *m, Dir: abs, From: from}, nil
}

// resolve turns the manifest's "./x" paths into paths under the plugin's folder.
func (p *Plugin) resolve(rel []string) []string {
	out := make([]string, 0, len(rel))
	for _, r := range rel {
		out = append(out, filepath.Join(p.Dir, filepath.FromSlash(r)))
	}
	return out
}

// CommandRoots are the folders (or single files) of the plugin's slash commands: commands/
// and the manifest's commands paths. The commands loader reads them as one more root whose
// commands are the plugin's ("/<plugin>:<name>").
func (p *Plugin) CommandRoots() []string {
	return append([]string{filepath.Join(p.Dir, "commands")}, p.resolve(p.Commands)...)
}

// AgentDirs are the folders of the plugin's sub-agent definitions, named "<plugin>:<name>".
func (p *Plugin) AgentDirs() []agentdef.Dir {
	var out []agentdef.Dir
	for _, d := range append([]string{filepath.Join(p.Dir, "agents")}, p.resolve(p.Agents)...) {
		out = append(out, agentdef.Dir{Path: d, Source: agentdef.SourcePlugin, Plugin: p.Name})
	}
	return out
}

// SkillRoots are the folders of the plugin's skills, named "<plugin>:<name>".
func (p *Plugin) SkillRoots() []skills.Root {
	var out []skills.Root
	for _, d := range append([]string{filepath.Join(p.Dir, "skills")}, p.resolve(p.Skills)...) {
		out = append(out, skills.Root{Path: d, Source: skills.SourcePlugin, Plugin: p.Name})
	}
	return out
}

// Hooks reads the plugin's hooks: hooks/hooks.json, the manifest's hook files and its inline
// hooks, as a settings file's hooks are read. ${CLAUDE_PLUGIN_ROOT} in a command is the
// plugin's folder: the variable is set for the hook (PluginRoot). Each hook is
// returned with the file it was written in and PluginRoot set; l.PluginHooks then governs
// them.
func (p *Plugin) Hooks(ctx context.Context) (entries []settings.HookEntry, files []string, warnings []settings.Warning, err error) {
	candidates := append([]string{filepath.Join(p.Dir, "hooks", "hooks.json")}, p.resolve(p.HooksFiles)...)
	if p.HooksInline != nil {
		candidates = append(candidates, filepath.Join(p.Dir, ManifestPath))
	}
	for _, f := range candidates {
		data, err := boundedfile.Read(ctx, f, boundedfile.Limits{MaxBytes: settings.MaxFileSize, Kind: "hooks file"})
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, nil, nil, err
		}
		hs, ws, err := settings.ParseHooks(f, data)
		if err != nil {
			return nil, nil, nil, err
		}
		for i := range hs {
			hs[i].PluginRoot = p.Dir
			files = append(files, f)
		}
		entries = append(entries, hs...)
		warnings = append(warnings, ws...)
	}
	return entries, files, warnings, nil
}

// MCPServers reads the plugin's MCP servers: .mcp.json, the manifest's files and its inline
// mcpServers. Each is a project server named "plugin_<plugin>_<server>": it starts only as
// the project's servers do (trust, then approval), and its name cannot take another server's
// approval. ${CLAUDE_PLUGIN_ROOT} in a command, argument or variable is the plugin's folder.
func (p *Plugin) MCPServers(ctx context.Context) ([]client.ServerConfig, error) {
	var out []client.ServerConfig
	for _, f := range append([]string{filepath.Join(p.Dir, ".mcp.json")}, p.resolve(p.MCPFiles)...) {
		data, err := boundedfile.Read(ctx, f, boundedfile.Limits{MaxBytes: client.MaxConfigBytes, Kind: "MCP config"})
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		cs, err := client.ParseConfigDocument(f, data, client.ScopeProject)
		if err != nil {
			return nil, err
		}
		out = append(out, cs...)
	}
	if p.MCPInline != nil {
		file := filepath.Join(p.Dir, ManifestPath)
		whole, err := boundedfile.Read(ctx, file, boundedfile.Limits{MaxBytes: MaxManifestSize, Kind: "plugin manifest"})
		if err != nil {
			return nil, err
		}
		cs, err := client.ParseServers(file, posjson.BlankBOM(whole), p.MCPInlineOff, client.ScopeProject)
		if err != nil {
			return nil, err
		}
		out = append(out, cs...)
	}
	for i := range out {
		c := &out[i]
		c.Name = "plugin_" + p.Name + "_" + c.Name
		c.Command = p.expand(c.Command)
		for j := range c.Args {
			c.Args[j] = p.expand(c.Args[j])
		}
		for k, v := range c.Env {
			c.Env[k] = p.expand(v)
		}
	}
	return out, nil
}

func (p *Plugin) expand(s string) string {
	return strings.ReplaceAll(s, "${CLAUDE_PLUGIN_ROOT}", p.Dir)
}

// Enabled is one enabledPlugins entry that is on: "<name>@<marketplace>" (or a bare name).
type Enabled struct {
	Key  string
	File string // the settings file that enabled it, for messages
}

// Find looks for an enabled plugin on disk, in this order:
//
//	<configDir>/plugins/<name>                         (~/.reins/plugins/<name>)
//	<home>/.claude/plugins/<name>
//	<home>/.claude/plugins/cache/<marketplace>/<name>  (or its one version folder)
//
// and returns the first folder that has a manifest.
func Find(key, home, configDir string) (string, bool) {
	name, market, _ := strings.Cut(key, "@")
	if !validName().MatchString(name) || strings.ContainsAny(market, `/\`) || market == ".." || market == "." {
		return "", false
	}
	var cands []string
	if configDir != "" {
		cands = append(cands, filepath.Join(configDir, "plugins", name))
	}
	if home != "" {
		cands = append(cands, filepath.Join(home, ".claude", "plugins", name))
		if market != "" {
			cache := filepath.Join(home, ".claude", "plugins", "cache", market, name)
			cands = append(cands, cache)
			if es, err := os.ReadDir(cache); err == nil && len(es) == 1 && es[0].IsDir() {
				cands = append(cands, filepath.Join(cache, es[0].Name()))
			}
		}
	}
	for _, c := range cands {
		if fi, err := os.Stat(filepath.Join(c, ManifestPath)); err == nil && fi.Mode().IsRegular() {
			return c, true
		}
	}
	return "", false
}

// Set is the plugins of a session.
type Set struct {
	Plugins []*Plugin
	// Errors are the plugins that could not be loaded: a session refuses to start with one,
	// as with a broken settings file, since what it would have brought (a PreToolUse hook)
	// may be what keeps a call from running.
	Errors []error
	// Missing are the enabled plugins not found on disk: nothing of them was ever there, so
	// the session only warns.
	Missing []string
}

// LoadAll loads the --plugin-dir folders, then the enabled plugins found on disk. A plugin
// that cannot be loaded is an error of the set and is left out; a second plugin of the same
// name is refused (its commands, agents and skills would take the first's names).
func LoadAll(ctx context.Context, dirs []string, enabled []Enabled, home, configDir string) *Set {
	s := &Set{}
	add := func(dir, from string) {
		if len(s.Plugins) >= MaxPlugins {
			s.Errors = append(s.Errors, fmt.Errorf("%s: more than %d plugins; the rest were not loaded", dir, MaxPlugins))
			return
		}
		p, err := Load(ctx, dir, from)
		if err != nil {
			s.Errors = append(s.Errors, err)
			return
		}
		for _, q := range s.Plugins {
			if q.Name == p.Name {
				s.Errors = append(s.Errors, fmt.Errorf("%s: a plugin named %q is already loaded from %s", p.Dir, p.Name, q.Dir))
				return
			}
		}
		s.Plugins = append(s.Plugins, p)
	}
	for _, d := range dirs {
		add(d, "--plugin-dir")
	}
	for _, e := range enabled {
		dir, ok := Find(e.Key, home, configDir)
		if !ok {
			s.Missing = append(s.Missing, fmt.Sprintf("plugin %s (enabled in %s) is not on disk: Reins loads installed plugins only and fetches nothing (looked in %s)", e.Key, e.File, strings.Join(lookedIn(e.Key, home, configDir), ", ")))
			continue
		}
		add(dir, "enabledPlugins in "+e.File)
	}
	return s
}

func lookedIn(key, home, configDir string) []string {
	name, market, _ := strings.Cut(key, "@")
	var out []string
	if configDir != "" {
		out = append(out, filepath.Join(configDir, "plugins", name))
	}
	if home != "" {
		out = append(out, filepath.Join(home, ".claude", "plugins", name))
		if market != "" {
			out = append(out, filepath.Join(home, ".claude", "plugins", "cache", market, name))
		}
	}
	return out
}
