package cmdutil

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/reinsdev/reins/internal/app"
	"github.com/reinsdev/reins/settings"
)

// PermFlags are the flags every command that decides tool calls shares.
type PermFlags struct {
	Mode                 string
	AddDirs              []string
	Allowed              []string
	Disallowed           []string
	Settings             string
	SettingSources       string
	DangerouslySkip      bool
	AllowDangerouslySkip bool
	Restricted           bool
	// flags is where the flags were registered, to tell --setting-sources= from no flag.
	flags *pflag.FlagSet
}

func (pf *PermFlags) Register(cmd *cobra.Command) {
	fl := cmd.Flags()
	pf.flags = fl
	fl.StringVar(&pf.Mode, "permission-mode", "", "permission mode: default, acceptEdits, plan, dontAsk, bypassPermissions or auto")
	fl.StringArrayVar(&pf.AddDirs, "add-dir", nil, "an additional working directory (repeatable)")
	fl.StringArrayVar(&pf.Allowed, "allowedTools", nil, `allow rules, e.g. "Bash(git diff:*)": every value up to the next flag, comma- or space-separated`)
	fl.StringArrayVar(&pf.Disallowed, "disallowedTools", nil, "deny rules: every value up to the next flag, comma- or space-separated")
	fl.StringVar(&pf.Settings, "settings", "", "a settings file, or inline settings JSON")
	fl.StringVar(&pf.SettingSources, "setting-sources", "", "which of user,project,local settings to load (default all; empty: none of them, managed and --settings still apply)")
	fl.BoolVar(&pf.DangerouslySkip, "dangerously-skip-permissions", false, "start in bypassPermissions mode")
	fl.BoolVar(&pf.AllowDangerouslySkip, "allow-dangerously-skip-permissions", false, "make bypassPermissions available without starting in it")
	fl.BoolVar(&pf.Restricted, "restricted", false, "no Bash, web or worktree tools, no bypassPermissions, no !`cmd` in commands; only managed and --settings files are read")
}

// PermEnv is the permission state a command runs with.
type PermEnv = app.Settings

// SettingsOptions are the settings locations for a session in cwd, from f's environment.
func SettingsOptions(f *Factory, cwd string) settings.Options {
	return app.Locations(f.Getenv, cwd)
}

// WorkDir is the session's original working directory with symlinks resolved, as the
// engine compares resolved paths.
func WorkDir(f *Factory) (string, error) {
	wd, err := f.Getwd()
	if err != nil {
		return "", fmt.Errorf("working directory: %w", err)
	}
	if r, err := filepath.EvalSymlinks(wd); err == nil {
		wd = r
	}
	return wd, nil
}

// SettingsOptions are the flags' settings sources and permission flags as app takes them.
func (pf *PermFlags) SettingsOptions(f *Factory) (app.SettingsOptions, error) {
	cwd, err := WorkDir(f)
	if err != nil {
		return app.SettingsOptions{}, err
	}
	o := app.SettingsOptions{
		Cwd:    cwd,
		Getenv: f.Getenv,
		File:   pf.Settings,
		Flags: settings.Flags{
			Mode:                 pf.Mode,
			DangerouslySkip:      pf.DangerouslySkip,
			AllowDangerouslySkip: pf.AllowDangerouslySkip,
			AllowedTools:         pf.Allowed,
			DisallowedTools:      pf.Disallowed,
			AddDirs:              pf.AddDirs,
			Restricted:           pf.Restricted,
		},
	}
	// --setting-sources= (empty) loads no settings files, as in Claude Code; managed policy and
	// --settings still apply.
	if pf.SettingSources != "" || (pf.flags != nil && pf.flags.Changed("setting-sources")) {
		if o.Sources, err = settings.ParseSources(pf.SettingSources); err != nil {
			return app.SettingsOptions{}, &UsageError{err}
		}
	}
	return o, nil
}

// Load reads every settings source and builds the permission context. An invalid settings
// file stops here with its file:line:col: reins never runs with a policy half-read.
func (pf *PermFlags) Load(f *Factory) (*PermEnv, error) {
	o, err := pf.SettingsOptions(f)
	if err != nil {
		return nil, err
	}
	return app.LoadSettings(o)
}
