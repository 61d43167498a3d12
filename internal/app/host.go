package app

import (
	"context"

	"github.com/reinsdev/reins/internal/app/sessionsandbox"
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

	// root's Getenv reads the environment through the settings' env blocks.
	root       Root
	executable func() (string, error)
	groups     bash.GroupGuard
	report     Reporter
}

// NewHost loads and checks the settings and starts the sandbox.
func NewHost(ctx context.Context, o HostOptions) (*Host, error) {
	fromProcess(&o.Getenv, &o.Executable, &o.Settings, o.Cwd)
	h, err := loadHost(o)
	if err != nil {
		return nil, err
	}
	if _, err := h.startSandbox(ctx, h.Settings.Context, nil); err != nil {
		return nil, err
	}
	return h, nil
}

// loadHost is the first part of the start-up of a host or a session, before its sandbox
// starts: the settings with the fail-closed checks of what runs tools (loadRunnable), and from
// then on the environment read through their env blocks (settingsEnv).
func loadHost(o HostOptions) (*Host, error) {
	root := Root{Geteuid: o.Geteuid, Getenv: o.Getenv}
	s, err := loadRunnable(o.Settings, root, o.Report)
	if err != nil {
		return nil, err
	}
	root.Getenv, s.Environ = settingsEnv(s, o.Getenv)
	return &Host{Settings: s, root: root, executable: o.Executable, groups: o.ShellGroups, report: o.Report}, nil
}

// startSandbox starts the sandbox for deciding in pc (see sessionsandbox.Start; a host's pc is its
// settings' context, a session's may be a restored one) and returns the context to decide
// in. A sandbox off for want of a backend is off for the settings' context too, which a
// host's pools and a session's switch start from. askHost answers for the hosts the allowed
// domains do not admit; nil refuses them.
func (h *Host) startSandbox(ctx context.Context, pc *permission.Context, askHost func(ctx context.Context, host string, port int) bool) (*permission.Context, error) {
	sbo := sessionsandbox.Options{Executable: h.executable, Getenv: h.root.Getenv, AskHost: askHost}
	sb, out, err := sessionsandbox.Start(ctx, h.Settings.Sandbox(), pc, sbo, func(n string) { h.report.warn("%s", n) })
	if err != nil {
		return nil, err
	}
	h.Sandbox = sb
	if out.Sandbox().Enabled != pc.Sandbox().Enabled {
		h.Settings.Context = sessionsandbox.Off(h.Settings.Context)
	}
	return out, nil
}

// NewPool is a pool of the built-in tools whose permission context of the moment perms
// returns, its shells in the host's sandbox.
func (h *Host) NewPool(perms func() *permission.Context) *Pool {
	return NewPool(h.Settings.Context, perms, PoolOptions{Getenv: h.root.Getenv, Environ: h.Settings.Environ, Sandbox: h.Sandbox, Groups: h.groups})
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
