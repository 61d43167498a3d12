package cmdutil

import "github.com/reinsdev/reins/internal/app"

// HostOptions are the options of an app.Host (tool run, mcp serve) from the permission flags
// and f's environment; the host refuses what a session refuses (a broken deny or ask rule,
// bypass as root). Its warnings go to standard error.
func HostOptions(f *Factory, pf *PermFlags) (app.HostOptions, error) {
	so, err := pf.SettingsOptions(f)
	if err != nil {
		return app.HostOptions{}, err
	}
	return app.HostOptions{Cwd: so.Cwd, Getenv: f.Getenv, Settings: so, Geteuid: f.Geteuid,
		Executable: f.Executable, ShellGroups: f.ShellGroups(), Report: Reporter(f)}, nil
}
