package cli

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/reinsdev/reins/permission"
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
}

// permEnv is the permission state a command runs with.
type permEnv struct {
	opts     settings.Options
	loaded   *settings.Loaded
	pc       *permission.Context
	report   *settings.Report
	warnings []settings.Warning
	trusted  bool
}

// settingsOptions are the settings locations for a session in cwd, from f's environment.
func settingsOptions(f *Factory, cwd string) settings.Options {
	home := f.Getenv("HOME")
	opts := settings.Options{
		Cwd:             cwd,
		Home:            home,
		ConfigDir:       f.Getenv("REINS_CONFIG_DIR"),
		ClaudeConfigDir: f.Getenv("CLAUDE_CONFIG_DIR"),
		ManagedDir:      f.Getenv("REINS_MANAGED_DIR"),
	}
	if opts.ConfigDir == "" && home != "" {
		opts.ConfigDir = filepath.Join(home, ".reins")
	}
	if opts.ClaudeConfigDir == "" && home != "" {
		opts.ClaudeConfigDir = filepath.Join(home, ".claude")
	}
	return opts
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

// load reads every settings source and builds the permission context. An invalid settings
// file stops here with its file:line:col: reins never runs with a policy half-read.
func (pf *permFlags) load(f *Factory) (*permEnv, error) {
	cwd, err := workDir(f)
	if err != nil {
		return nil, err
	}
	opts := settingsOptions(f, cwd)
	opts.Flag = pf.settings
	// --setting-sources= (empty) loads no settings files, as in Claude Code; managed policy and
	// --settings still apply.
	if pf.settingSources != "" || (pf.flags != nil && pf.flags.Changed("setting-sources")) {
		opts.Sources, err = settings.ParseSources(pf.settingSources)
		if err != nil {
			return nil, &usageError{err}
		}
	}
	if pf.mode != "" {
		if _, err := permission.ParseMode(pf.mode); err != nil {
			return nil, &usageError{err}
		}
	}
	loaded, err := settings.Load(opts)
	if err != nil {
		return nil, err
	}
	trusted, err := settings.IsTrusted(opts.ConfigDir, cwd)
	if err != nil {
		return nil, err
	}
	pc, report, err := loaded.Build(settings.Flags{
		Mode:                 pf.mode,
		DangerouslySkip:      pf.dangerouslySkip,
		AllowDangerouslySkip: pf.allowDangerouslySkip,
		AllowedTools:         pf.allowed,
		DisallowedTools:      pf.disallowed,
		AddDirs:              pf.addDirs,
		Trusted:              trusted,
	})
	if err != nil {
		return nil, err
	}
	return &permEnv{opts: opts, loaded: loaded, pc: pc, report: report, warnings: report.Warnings, trusted: trusted}, nil
}
