package cli

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/reinsdev/reins/internal/app"
	"github.com/reinsdev/reins/settings"
)

// permFlags are the flags every command that decides tool calls shares.
type permFlags struct {
	mode                 string
	addDirs              []string
	allowed              []string
	disallowed           []string
	settings             string
	settingSources       string
	dangerouslySkip      bool
	allowDangerouslySkip bool
	restricted           bool
	// flags is where the flags were registered, to tell --setting-sources= from no flag.
	flags *pflag.FlagSet
}

func (pf *permFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	pf.flags = fl
	fl.StringVar(&pf.mode, "permission-mode", "", "permission mode: default, acceptEdits, plan, dontAsk, bypassPermissions or auto")
	fl.StringArrayVar(&pf.addDirs, "add-dir", nil, "an additional working directory (repeatable)")
	fl.StringArrayVar(&pf.allowed, "allowedTools", nil, `allow rules, e.g. "Bash(git diff:*)": every value up to the next flag, comma- or space-separated`)
	fl.StringArrayVar(&pf.disallowed, "disallowedTools", nil, "deny rules: every value up to the next flag, comma- or space-separated")
	fl.StringVar(&pf.settings, "settings", "", "a settings file, or inline settings JSON")
	fl.StringVar(&pf.settingSources, "setting-sources", "", "which of user,project,local settings to load (default all; empty: none of them, managed and --settings still apply)")
	fl.BoolVar(&pf.dangerouslySkip, "dangerously-skip-permissions", false, "start in bypassPermissions mode")
	fl.BoolVar(&pf.allowDangerouslySkip, "allow-dangerously-skip-permissions", false, "make bypassPermissions available without starting in it")
	fl.BoolVar(&pf.restricted, "restricted", false, "no Bash, web or worktree tools, no bypassPermissions, no !`cmd` in commands; only managed and --settings files are read")
}

// permEnv is the permission state a command runs with.
type permEnv = app.Settings

// settingsOptions are the settings locations for a session in cwd, from f's environment.
func settingsOptions(f *Factory, cwd string) settings.Options {
	return app.Locations(f.Getenv, cwd)
}

// workDir is the session's original working directory with symlinks resolved, as the
// engine compares resolved paths.
func workDir(f *Factory) (string, error) {
	wd, err := f.Getwd()
	if err != nil {
		return "", fmt.Errorf("working directory: %w", err)
	}
	if r, err := filepath.EvalSymlinks(wd); err == nil {
		wd = r
	}
	return wd, nil
}

// settingsOptions are the flags' settings sources and permission flags as app takes them.
func (pf *permFlags) settingsOptions(f *Factory) (app.SettingsOptions, error) {
	cwd, err := workDir(f)
	if err != nil {
		return app.SettingsOptions{}, err
	}
	o := app.SettingsOptions{
		Cwd:    cwd,
		Getenv: f.Getenv,
		File:   pf.settings,
		Flags: settings.Flags{
			Mode:                 pf.mode,
			DangerouslySkip:      pf.dangerouslySkip,
			AllowDangerouslySkip: pf.allowDangerouslySkip,
			AllowedTools:         pf.allowed,
			DisallowedTools:      pf.disallowed,
			AddDirs:              pf.addDirs,
			Restricted:           pf.restricted,
		},
	}
	// --setting-sources= (empty) loads no settings files, as in Claude Code; managed policy and
	// --settings still apply.
	if pf.settingSources != "" || (pf.flags != nil && pf.flags.Changed("setting-sources")) {
		if o.Sources, err = settings.ParseSources(pf.settingSources); err != nil {
			return app.SettingsOptions{}, &usageError{err}
		}
	}
	return o, nil
}

// load reads every settings source and builds the permission context. An invalid settings
// file stops here with its file:line:col: reins never runs with a policy half-read.
func (pf *permFlags) load(f *Factory) (*permEnv, error) {
	o, err := pf.settingsOptions(f)
	if err != nil {
		return nil, err
	}
	return app.LoadSettings(o)
}
