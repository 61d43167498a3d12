package app

import (
	"context"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/sandbox"
	"github.com/reinsdev/reins/tools/bash"
)

// HostOptions are what a Host is built from: the part of Options that concerns running tools.
type HostOptions struct {
	Cwd    string
	Getenv func(string) string // nil is os.Getenv
	// Settings' Cwd and Getenv default to the options'.
	Settings    SettingsOptions
	Geteuid     func() int             // nil is os.Geteuid
	Executable  func() (string, error) // the sandbox's helper; nil is os.Executable
	ShellGroups bash.GroupGuard        // may be nil
	Report      Reporter
}

// Host runs tools without a model or an agent, refusing what a session refuses: the settings
// with the fail-closed checks of a session that runs tools (CheckRunnable) and the OS sandbox
// when the settings enable it. `mcp serve` builds each connection's tools on it, `tool run`
// its one call. Close it.
type Host struct {
	Settings *Settings
	// Sandbox confines every shell of the host's pools; nil when the settings do not enable it.
	Sandbox *sandbox.Sandbox

	getenv func(string) string
	groups bash.GroupGuard
	report Reporter
}

// NewHost loads and checks the settings and starts the sandbox.
func NewHost(ctx context.Context, o HostOptions) (*Host, error) {
	fromProcess(&o.Getenv, &o.Executable, &o.Settings, o.Cwd)
	s, err := loadRunnable(o.Settings, Root{Geteuid: o.Geteuid, Getenv: o.Getenv}, o.Report)
	if err != nil {
		return nil, err
	}
	o.Getenv, s.Environ = settingsEnv(s, o.Getenv)
	sb, pc, err := StartSandbox(ctx, s, s.Context, SandboxOptions{Executable: o.Executable, Getenv: o.Getenv}, func(n string) { o.Report.warn("%s", n) })
	if err != nil {
		return nil, err
	}
	s.Context = pc
	return &Host{Settings: s, Sandbox: sb, getenv: o.Getenv, groups: o.ShellGroups, report: o.Report}, nil
}

// NewPool is a pool of the built-in tools whose permission context of the moment perms
// returns, its shells in the host's sandbox.
func (h *Host) NewPool(perms func() *permission.Context) *Pool {
	return NewPool(h.Settings.Context, perms, PoolOptions{Getenv: h.getenv, Environ: h.Settings.Environ, Sandbox: h.Sandbox, Groups: h.groups})
}

// Close ends the sandbox. It may be called more than once.
func (h *Host) Close() error {
	if h.Sandbox == nil {
		return nil
	}
	err := h.Sandbox.Close()
	h.Sandbox = nil
	return err
}

// loadRunnable loads the settings for a session or a host that runs tools: every rule source
// must be usable (a broken deny stops it) and bypass is refused to root however it is
// reached. Warnings go to rep.
func loadRunnable(o SettingsOptions, root Root, rep Reporter) (*Settings, error) {
	s, err := LoadSettings(o)
	if err != nil {
		return nil, err
	}
	if err := s.CheckRunnable(root); err != nil {
		return nil, err
	}
	for _, w := range s.Report.Warnings {
		rep.warn("%s", w)
	}
	if s.PolicyWarning != "" {
		rep.warn("%s", s.PolicyWarning)
	}
	return s, nil
}
