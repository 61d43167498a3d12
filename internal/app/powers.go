package app

import (
	"context"
	"fmt"
	"strings"

	"github.com/reinsdev/reins/agentdef"
	"github.com/reinsdev/reins/mcp/client"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/plugins"
	"github.com/reinsdev/reins/settings"
)

// PowerKind is a kind of thing a configuration file makes run or redirects.
type PowerKind string

// The kinds, in the order they are shown: what runs code or decides where requests and
// credentials go first.
const (
	PowerKeyHelper      PowerKind = "apiKeyHelper"
	PowerEnv            PowerKind = "env"
	PowerHook           PowerKind = "hook"
	PowerMCPServer      PowerKind = "mcpServer"
	PowerPlugin         PowerKind = "plugin"
	PowerAllowedTools   PowerKind = "allowedTools"
	PowerPermissionMode PowerKind = "permissionMode"
	PowerHelper         PowerKind = "helper"
)

// PowerKinds lists the kinds in display order.
var PowerKinds = []PowerKind{PowerKeyHelper, PowerEnv, PowerHook, PowerMCPServer, PowerPlugin, PowerAllowedTools, PowerPermissionMode, PowerHelper}

// Power is one thing a settings, MCP, command, skill or agent file makes the program run —
// a command, a server, a plugin, tools granted without asking, a sub-agent's mode — or that
// changes where the model's requests and credentials go (env). Trusting a folder is trusting
// these; `permissions list` shows them.
type Power struct {
	Kind PowerKind `json:"kind"`
	// What is the thing in full: "apiKeyHelper: curl … | sh", "ANTHROPIC_BASE_URL=…".
	What string `json:"what"`
	// Where is the file:line:col it is written at (a file alone when no position is known).
	Where string `json:"where"`
	// Source is the settings source, or the folder kind ("project", "user", "plugin").
	Source string `json:"source"`
	// Waits says it applies only once the project is trusted.
	Waits bool `json:"waitsForTrust,omitempty"`
	// Note qualifies it ("Claude Code runs it; Reins does not").
	Note string `json:"note,omitempty"`
}

// PowersOptions are what Powers reads besides the settings.
type PowersOptions struct {
	Getenv func(string) string
	// PluginDirs are --plugin-dir folders.
	PluginDirs []string
	// MCP are the MCP flags (--mcp-config, --strict-mcp-config).
	MCP MCPOptions
}

// Powers lists what the configuration of s makes run or redirects, every source, in
// PowerKinds order and within a kind in load order. What cannot be read is left out here: the
// session's own assembly reports it.
func Powers(ctx context.Context, s *Settings, o PowersOptions) []Power {
	var out []Power
	untrusted := !s.Trusted
	waits := func(src permission.Source) bool { return untrusted && settings.WaitsForTrust(src) }
	for _, f := range s.Loaded.Files {
		if e := f.Settings.APIKeyHelper; f.DuplicateOf == "" && e != nil && strings.TrimSpace(e.Value) != "" {
			out = append(out, Power{Kind: PowerKeyHelper, What: "apiKeyHelper: " + e.Value, Where: at(f.Path, e.Line, e.Col), Source: f.Source.String(), Waits: waits(f.Source)})
		}
	}
	for _, v := range s.Loaded.Env(true) {
		out = append(out, Power{Kind: PowerEnv, What: v.Name + "=" + v.Value, Where: v.Origin(), Source: v.Source.String(), Waits: waits(v.Source)})
	}
	ps, _, perr := LoadPlugins(ctx, s, o.PluginDirs)
	hooks := s.Loaded.Hooks(s.Trusted)
	if perr == nil {
		ph, _, _ := PluginHooks(ctx, s, ps)
		hooks = append(hooks, ph...)
	}
	for _, h := range hooks {
		what := h.Event
		if h.Matcher != "" {
			what += " (" + h.Matcher + ")"
		}
		src := h.Source.String()
		if h.PluginRoot != "" {
			src = "plugin"
		}
		out = append(out, Power{Kind: PowerHook, What: what + ": " + h.Runs(), Where: h.Origin(), Source: src,
			Waits: strings.Contains(h.Skipped, "not trusted"), Note: h.Skipped})
	}
	out = append(out, serverPowers(s, o, ps)...)
	for _, f := range s.Loaded.Files {
		for _, e := range f.Settings.EnabledPlugins {
			if f.DuplicateOf == "" && e.Enabled {
				p := Power{Kind: PowerPlugin, What: "plugin " + e.Key, Where: at(f.Path, e.Line, e.Col), Source: f.Source.String(), Waits: waits(f.Source)}
				if p.Waits {
					p.Note = "enabled now; its hooks, MCP servers and allowed-tools wait for trust"
				}
				out = append(out, p)
			}
		}
	}
	out = append(out, grantPowers(ctx, s, ps)...)
	out = append(out, modePowers(s, ps)...)
	for _, h := range s.Loaded.Helpers() {
		out = append(out, Power{Kind: PowerHelper, What: h.Key + ": " + h.Command, Where: h.Origin(), Source: h.Source.String(),
			Waits: waits(h.Source), Note: "Claude Code runs it; Reins does not"})
	}
	return out
}

func at(file string, line, col int) string {
	if line == 0 {
		return file
	}
	return fmt.Sprintf("%s:%d:%d", file, line, col)
}

// serverPowers are the MCP servers of every configuration, the plugins' included.
func serverPowers(s *Settings, o PowersOptions, ps *plugins.Set) []Power {
	getenv := o.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	mo := o.MCP
	if ps != nil {
		mo.Plugins, _ = PluginServers(context.Background(), ps)
	}
	entries, err := client.Load(MCPLoadOptions(s, getenv, mo))
	if err != nil {
		return nil
	}
	var out []Power
	for _, e := range entries {
		c := e.Config
		launch := c.URL
		if c.TransportType() == client.TypeStdio {
			launch = strings.Join(append([]string{c.Command}, c.Args...), " ")
		}
		out = append(out, Power{Kind: PowerMCPServer, What: c.Name + ": " + launch, Where: c.Pos, Source: string(c.Scope),
			Waits: c.Scope == client.ScopeProject && !s.Trusted, Note: e.Reason})
	}
	return out
}

// grantPowers are the commands' and skills' allowed-tools: tools granted without asking for
// the turn the command or skill drives.
func grantPowers(ctx context.Context, s *Settings, ps *plugins.Set) []Power {
	var out []Power
	cmds, _ := LoadCommands(ctx, s, PluginCommandRoots(ps)...)
	for _, c := range cmds.All() {
		for _, r := range c.Rules(true) {
			out = append(out, Power{Kind: PowerAllowedTools, What: "/" + c.Name + ": " + r.Value.String(), Where: at(r.Origin.File, r.Origin.Line, r.Origin.Col),
				Source: string(c.Source), Waits: c.Source.NeedsTrust() && !s.Trusted})
		}
	}
	sks, _ := LoadSkills(ctx, s, ps)
	for _, sk := range sks.All() {
		for _, g := range sk.Grants {
			out = append(out, Power{Kind: PowerAllowedTools, What: "skill " + sk.Name + ": " + g.Rule, Where: at(g.Origin.File, g.Origin.Line, g.Origin.Col),
				Source: sk.Where(), Waits: !sk.Trusted})
		}
	}
	return out
}

// modePowers are the agent definitions that choose their sub-agent's permission mode.
func modePowers(s *Settings, ps *plugins.Set) []Power {
	dirs := append(agentdef.Dirs(s.Options.Home, s.Options.ConfigDir, s.Context.OriginalCwd()), pluginAgentDirs(ps)...)
	var out []Power
	for _, d := range agentdef.Load(dirs).All() {
		if d.PermissionMode == "" || d.File == "" {
			continue
		}
		gated := d.Source == agentdef.SourceProject || d.Source == agentdef.SourcePlugin
		out = append(out, Power{Kind: PowerPermissionMode, What: "agent " + d.Name + ": permissionMode " + string(d.PermissionMode),
			Where: at(d.File, d.ModeLine, d.ModeCol), Source: d.Source.String(), Waits: gated && !s.Trusted})
	}
	return out
}
