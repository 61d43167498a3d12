package chatview

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/reinsdev/reins/internal/app"
	"github.com/reinsdev/reins/internal/cli/cmd/agent/shared"
	"github.com/reinsdev/reins/internal/cli/cmdutil"
	"github.com/reinsdev/reins/internal/tui"
	"github.com/reinsdev/reins/memory"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/settings"
)

// AskTrust puts an untrusted project to the person before the chat's session is assembled:
// the dialog lists what trusting it would enable, read from its files, and Yes records the
// trust as `reins trust` does. Because the session is assembled after the answer, everything
// the trust changes (allow rules, directories, defaultMode, hooks, the apiKeyHelper, memory as
// instructions, the approval of .mcp.json servers) applies at once. A folder whose files would
// enable nothing is not asked about. Anything that cannot be read leaves the folder untrusted
// and the session's own assembly reports it.
func AskTrust(ctx context.Context, f *cmdutil.Factory, opts *shared.Options, term tui.Terminal) error {
	offer, configDir, home, ok := trustOffer(ctx, f, opts)
	if !ok {
		return nil
	}
	yes, err := tui.AskTrust(ctx, term, offer)
	if err != nil || !yes {
		return err
	}
	if err := settings.Trust(configDir, home, offer.Folder); err != nil {
		return fmt.Errorf("trusting %s: %w", offer.Folder, err)
	}
	return nil
}

// trustOffer reads what trusting the working folder would enable. ok is false when the folder
// is trusted, when it would enable nothing, or when its settings cannot be read.
func trustOffer(ctx context.Context, f *cmdutil.Factory, opts *shared.Options) (offer tui.TrustOffer, configDir, home string, ok bool) {
	so, err := opts.Perm.SettingsOptions(f)
	if err != nil {
		return offer, "", "", false
	}
	s, err := app.LoadSettings(so)
	if err != nil || s.Trusted || s.Options.ConfigDir == "" {
		return offer, "", "", false
	}
	if settings.CheckTrustable(s.Options.Home, s.Options.Cwd) != nil {
		// The home folder, the root, a shared temporary folder: not offered, since trusting it
		// would trust every project beneath it. The session runs untrusted.
		return offer, "", "", false
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
	offer.Runs = trustRuns(ctx, s, f.Getenv, opts)
	offer.Memory = untrustedMemory(ctx, s)
	return offer, s.Options.ConfigDir, s.Options.Home, !offer.Empty()
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

// powerTitles are the trust dialog's headings of what a folder's files run, by kind.
var powerTitles = map[app.PowerKind]string{
	app.PowerKeyHelper:      "Credential helpers (run to get the API key):",
	app.PowerEnv:            "Environment (for the model API, Bash, hooks and MCP servers):",
	app.PowerHook:           "Hooks (commands run on events):",
	app.PowerMCPServer:      "MCP servers (each asked about next):",
	app.PowerPlugin:         "Plugins enabled (their hooks, servers and allowed-tools wait for trust):",
	app.PowerAllowedTools:   "Commands and skills that grant tools without asking (allowed-tools):",
	app.PowerPermissionMode: "Agents that choose their permission mode:",
	app.PowerHelper:         "Commands Claude Code runs from these files (Reins does not run them):",
}

// trustRuns are what trusting the folder would let its files run or redirect, a group per
// kind in app.PowerKinds order, every item in full.
func trustRuns(ctx context.Context, s *app.Settings, getenv func(string) string, opts *shared.Options) []tui.TrustGroup {
	byKind := map[app.PowerKind][]tui.TrustItem{}
	for _, p := range app.Powers(ctx, s, app.PowersOptions{Getenv: getenv, PluginDirs: opts.PluginDirs, MCP: opts.MCP.Options()}) {
		if !p.Waits {
			continue
		}
		// Shown whole: where a variable points or what a helper runs is what the person is
		// asked to trust.
		byKind[p.Kind] = append(byKind[p.Kind], tui.TrustItem{What: printableLine(p.What), Where: relTo(s.Options.Cwd, p.Where)})
	}
	var out []tui.TrustGroup
	for _, k := range app.PowerKinds {
		if items := byKind[k]; len(items) > 0 {
			out = append(out, tui.TrustGroup{Title: powerTitles[k], Items: items})
		}
	}
	return out
}

// printableLine keeps a value on one line of the dialog: control characters are quoted.
func printableLine(s string) string {
	if strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }) {
		return fmt.Sprintf("%q", s)
	}
	return s
}

// untrustedMemory are the project's memory files that reach the model as information now and
// as instructions once the project is trusted.
func untrustedMemory(ctx context.Context, s *app.Settings) []tui.TrustItem {
	files, err := memory.NewLoader(app.MemoryOptions(s, &permission.Engine{}, func() *permission.Context { return s.Context })).Load(ctx)
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
