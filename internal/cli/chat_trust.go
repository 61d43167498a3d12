package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/reinsdev/reins/internal/app"
	"github.com/reinsdev/reins/internal/tui"
	"github.com/reinsdev/reins/mcp/client"
	"github.com/reinsdev/reins/memory"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/settings"
)

// askTrust puts an untrusted project to the person before the chat's session is assembled:
// the dialog lists what trusting it would enable, read from its files, and Yes records the
// trust as `reins trust` does. Because the session is assembled after the answer, everything
// the trust changes (allow rules, directories, defaultMode, hooks, the apiKeyHelper, memory as
// instructions, the approval of .mcp.json servers) applies at once. A folder whose files would
// enable nothing is not asked about. Anything that cannot be read leaves the folder untrusted
// and the session's own assembly reports it.
func askTrust(ctx context.Context, f *Factory, opts *agentOptions, term tui.Terminal) error {
	offer, configDir, ok := trustOffer(ctx, f, opts)
	if !ok {
		return nil
	}
	yes, err := tui.AskTrust(ctx, term, offer)
	if err != nil || !yes {
		return err
	}
	if err := settings.Trust(configDir, offer.Folder); err != nil {
		return fmt.Errorf("trusting %s: %w", offer.Folder, err)
	}
	return nil
}

// trustOffer reads what trusting the working folder would enable. ok is false when the folder
// is trusted, when it would enable nothing, or when its settings cannot be read.
func trustOffer(ctx context.Context, f *Factory, opts *agentOptions) (offer tui.TrustOffer, configDir string, ok bool) {
	so, err := opts.perm.settingsOptions(f)
	if err != nil {
		return offer, "", false
	}
	s, err := app.LoadSettings(so)
	if err != nil || s.Trusted || s.Options.ConfigDir == "" {
		return offer, "", false
	}
	offer.Folder = s.Options.Cwd
	// The gated lists are read again whole for the dialog only: the context built here is
	// dropped, and the session loads the files again after the answer.
	flags := so.Flags
	flags.Trusted = true
	if _, whole, err := s.Loaded.Build(flags); err == nil {
		offer.Rules, offer.Directories = trustGatedEntries(whole, offer.Folder)
	}
	offer.Mode = projectDefaultMode(s.Loaded, offer.Folder)
	// A plugin's hooks and servers wait for the trust as the project's own do.
	ps, _, perr := app.LoadPlugins(ctx, s, opts.pluginDirs)
	var pluginHooks []settings.HookEntry
	var pluginServers []client.ServerConfig
	if perr == nil {
		pluginHooks, _, _ = app.PluginHooks(ctx, s, ps)
		pluginServers, _ = app.PluginServers(ctx, ps)
	}
	for _, h := range append(s.Loaded.Hooks(false), pluginHooks...) {
		if strings.Contains(h.Skipped, "not trusted") {
			what := h.Event
			if h.Matcher != "" {
				what += " (" + h.Matcher + ")"
			}
			offer.Hooks = append(offer.Hooks, tui.TrustItem{What: what + ": " + h.Runs(), Where: relTo(offer.Folder, h.Origin())})
		}
	}
	if _, skipped := s.Loaded.APIKeyHelper(false); len(skipped) > 0 {
		for _, h := range skipped {
			offer.Credentials = append(offer.Credentials, tui.TrustItem{What: "apiKeyHelper: " + h.Command, Where: fmt.Sprintf("%s:%d:%d", relTo(offer.Folder, h.File), h.Line, h.Col)})
		}
	}
	for _, v := range app.UntrustedEnv(s) {
		// The value is shown: where a variable points (a base URL, a preloaded library) is
		// what the person is asked to trust. %q keeps a control character out of the terminal.
		value := v.Value
		if strings.ContainsFunc(value, func(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }) {
			value = fmt.Sprintf("%q", value)
		}
		offer.Env = append(offer.Env, tui.TrustItem{What: v.Name + "=" + truncate(value, 80), Where: relTo(offer.Folder, v.Origin())})
	}
	offer.Servers = projectServers(s, f.Getenv, opts, pluginServers)
	offer.Memory = untrustedMemory(ctx, s)
	return offer, s.Options.ConfigDir, !offer.Empty()
}

// trustGatedEntries are the allow rules and additional directories of the project files, shared
// and local, with their positions, from a report built as if the project were trusted.
func trustGatedEntries(r *settings.Report, cwd string) (rules, dirs []tui.TrustItem) {
	for _, file := range r.Files {
		if !settings.WaitsForTrust(file.Source) || file.DuplicateOf != "" {
			continue
		}
		for _, e := range file.Entries {
			item := tui.TrustItem{What: e.Value, Where: fmt.Sprintf("%s:%d:%d", relTo(cwd, file.Path), e.Line, e.Col)}
			switch {
			case e.Status != settings.StatusLoaded && e.Status != settings.StatusMissing:
			case e.List == "allow":
				rules = append(rules, item)
			case e.List == "additionalDirectories":
				dirs = append(dirs, item)
			}
		}
	}
	return rules, dirs
}

// projectDefaultMode is the project files' defaultMode, which waits for trust: the one that
// would apply, as a local file's overrides a shared one's and, within a source, Reins' file
// overrides Claude Code's (which Files lists after it).
func projectDefaultMode(l *settings.Loaded, cwd string) *tui.TrustItem {
	var out *tui.TrustItem
	var from permission.Source
	for _, file := range l.Files {
		if !settings.WaitsForTrust(file.Source) || file.DuplicateOf != "" || file.Settings.DefaultMode == nil {
			continue
		}
		if out != nil && file.Source == from && file.Claude {
			continue
		}
		e := file.Settings.DefaultMode
		out = &tui.TrustItem{What: e.Value, Where: fmt.Sprintf("%s:%d:%d", relTo(cwd, file.Path), e.Line, e.Col)}
		from = file.Source
	}
	return out
}

// projectServers are the servers of the project's .mcp.json: trusting the folder lets the chat
// ask whether to start each of them.
func projectServers(s *app.Settings, getenv func(string) string, opts *agentOptions, plugins []client.ServerConfig) []tui.TrustItem {
	mo := opts.mcp.options()
	mo.Plugins = plugins
	entries, err := client.Load(app.MCPLoadOptions(s, getenv, mo))
	if err != nil {
		return nil
	}
	var out []tui.TrustItem
	for _, e := range entries {
		c := e.Config
		if c.Scope != client.ScopeProject {
			continue
		}
		launch := c.URL
		if c.TransportType() == client.TypeStdio {
			launch = strings.Join(append([]string{c.Command}, c.Args...), " ")
		}
		out = append(out, tui.TrustItem{What: c.Name + ": " + launch, Where: relTo(s.Options.Cwd, c.Pos)})
	}
	return out
}

// untrustedMemory are the project's memory files that reach the model as information now and
// as instructions once the project is trusted.
func untrustedMemory(ctx context.Context, s *app.Settings) []tui.TrustItem {
	files, err := memory.NewLoader(app.MemoryOptions(ctx, s, s.Context)).Load(ctx)
	if err != nil {
		return nil
	}
	var out []tui.TrustItem
	for _, file := range files {
		if file.Untrusted {
			out = append(out, tui.TrustItem{What: relTo(s.Options.Cwd, file.Path)})
		}
	}
	return out
}

// relTo shortens a path (or a file:line:col) inside the folder to the part below it.
func relTo(folder, p string) string {
	return strings.TrimPrefix(p, folder+string(filepath.Separator))
}
