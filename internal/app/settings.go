package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/reinsdev/reins/internal/app/sessionsandbox"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/settings"
)

// SettingsOptions are where a session's settings come from and the permission flags on top.
type SettingsOptions struct {
	// Cwd is the session's working directory; its symlinks are resolved, as the engine
	// compares resolved paths.
	Cwd string
	// Getenv reads HOME, REINS_CONFIG_DIR, CLAUDE_CONFIG_DIR and REINS_MANAGED_DIR.
	Getenv func(string) string
	// File is --settings: a settings file, or inline settings JSON.
	File string
	// Sources, when not nil, limits which of the user, project and local settings load
	// (settings.ParseSources); empty loads none of them (managed and File still apply).
	Sources []permission.Source
	// Flags are the permission flags; their Trusted is ignored: the trust is read from the
	// config folder.
	Flags settings.Flags
	// Proposed are policy documents read as policy files on top of every other source (the
	// policy replay tries a proposed policy with them).
	Proposed []settings.Bundle
}

// Settings is the permission state a session or a command runs with: every settings source
// read, and the permission context built from them and the flags.
type Settings struct {
	Options settings.Options
	Loaded  *settings.Loaded
	Context *permission.Context
	Report  *settings.Report
	// Trusted says the project folder was trusted (reins trust).
	Trusted bool
	// PolicyVersion is the version of the signed policy bundle applied ("" for none), which
	// the session's engine stamps on every decision; PolicyWarning says why a bundle that is
	// not required was not fetched (the cached copy, or none, applies).
	PolicyVersion string
	PolicyWarning string
	// EnvVars are the variables the settings' env blocks set for the session, and Environ
	// the environment of the processes it starts with them set (nil when they set none);
	// both are filled by a session or a host that runs tools (settingsEnv).
	EnvVars []settings.EnvVar
	Environ []string
	// Restricted is --restricted (settings.Flags.Restricted).
	Restricted bool
}

// Sandbox is what of s the session's sandbox is built from.
func (s *Settings) Sandbox() sessionsandbox.Settings {
	return sessionsandbox.Settings{Loaded: s.Loaded, Trusted: s.Trusted, Context: s.Context, ConfigDir: s.Options.ConfigDir}
}

// Locations are the settings locations of a session in cwd, from the environment.
func Locations(getenv func(string) string, cwd string) settings.Options {
	home := getenv("HOME")
	opts := settings.Options{
		Cwd:             cwd,
		Home:            home,
		ConfigDir:       getenv("REINS_CONFIG_DIR"),
		ClaudeConfigDir: getenv("CLAUDE_CONFIG_DIR"),
		ManagedDir:      getenv("REINS_MANAGED_DIR"),
	}
	if opts.ConfigDir == "" && home != "" {
		opts.ConfigDir = filepath.Join(home, ".reins")
	}
	if opts.ClaudeConfigDir == "" && home != "" {
		opts.ClaudeConfigDir = filepath.Join(home, ".claude")
	}
	return opts
}

// LoadSettings reads every settings source and builds the permission context. An invalid
// settings file stops here with its file:line:col: nothing runs with a policy half-read. It
// does not refuse what only a session that runs tools must refuse: see [Settings.CheckRunnable].
func LoadSettings(o SettingsOptions) (*Settings, error) {
	cwd := o.Cwd
	if r, err := filepath.EvalSymlinks(cwd); err == nil {
		cwd = r
	}
	opts := Locations(o.Getenv, cwd)
	opts.Flag = o.File
	opts.Sources = o.Sources
	if o.Flags.Restricted {
		// Only managed policy and --settings are read.
		opts.Sources = settings.RestrictedSources()
	}
	opts.Bundles = o.Proposed
	if o.Flags.Mode != "" {
		if _, err := permission.ParseMode(o.Flags.Mode); err != nil {
			return nil, &UsageError{Err: err}
		}
	}
	loaded, err := settings.Load(opts)
	if err != nil {
		return nil, err
	}
	s := &Settings{Options: opts, Loaded: loaded}
	if err := loadBundle(context.Background(), s); err != nil {
		return nil, err
	}
	opts, loaded = s.Options, s.Loaded
	trusted, err := settings.IsTrusted(opts.ConfigDir, opts.Home, cwd)
	if err != nil {
		return nil, err
	}
	flags := o.Flags
	flags.Trusted = trusted
	pc, report, err := loaded.Build(flags)
	if err != nil {
		return nil, err
	}
	s.Context, s.Report, s.Trusted = pc, report, trusted
	s.Restricted = o.Flags.Restricted
	return s, nil
}

// Root says whether bypassPermissions must be refused: the process runs as root outside a
// sandbox or container.
type Root struct {
	// Geteuid is the effective user id; nil is os.Geteuid.
	Geteuid func() int
	// Getenv reads IS_SANDBOX (Claude Code's) and REINS_SANDBOX: "1" says reins runs inside a
	// sandbox or container, where running as root is normal.
	Getenv func(string) string
}

// CheckRunnable is what a command that runs tools refuses on top of LoadSettings: a deny or
// ask rule of any source that could not be loaded (naming the rule and where it was written),
// and bypassPermissions as root however it was reached. Invalid allow rules stay warnings.
func (s *Settings) CheckRunnable(root Root) error {
	if err := s.Report.FailClosed(); err != nil {
		return err
	}
	from := s.Report.ModeFrom
	if s.Context.Mode() != permission.ModeBypass {
		from = ""
	}
	return root.RefuseBypass(s.Context, from)
}

// RefuseBypass refuses bypassPermissions for root however it was reached: the flags, a
// settings defaultMode, a resumed session (from names it), or bypass made available. As root,
// bypass means any command runs with every privilege and nothing asks.
func (r Root) RefuseBypass(pc *permission.Context, from string) error {
	euid := os.Geteuid
	if r.Geteuid != nil {
		euid = r.Geteuid
	}
	if euid() != 0 || (r.Getenv != nil && (r.Getenv("IS_SANDBOX") == "1" || r.Getenv("REINS_SANDBOX") == "1")) {
		return nil
	}
	if pc.Mode() != permission.ModeBypass && !pc.BypassAvailable() {
		return nil
	}
	if from == "" {
		from = "--allow-dangerously-skip-permissions"
	}
	return fmt.Errorf("bypassPermissions mode (from %s) cannot be used with root/sudo privileges for security reasons (set IS_SANDBOX=1 inside a sandbox or container)", from)
}
