package settings

import (
	"path/filepath"

	"github.com/reinsdev/reins/permission"
)

// LoadContext is the short way from the settings files to decisions: it reads every source
// for a session in opts.Cwd ([OptionsFromEnv] gives the usual options), looks up whether the
// project is trusted, and builds the permission context with the flags f. A trusted project
// (see [Trust]) counts as trusted whatever f.Trusted says. The working directory is used with
// symlinks resolved, as the engine compares resolved paths. Errors are those of [Load] and
// [Loaded.Context]; warnings list what was skipped.
func LoadContext(opts Options, f Flags) (*permission.Context, []Warning, error) {
	opts = opts.withDefaults()
	if r, err := filepath.EvalSymlinks(opts.Cwd); err == nil {
		opts.Cwd = r
	}
	l, err := Load(opts)
	if err != nil {
		return nil, nil, err
	}
	if !f.Trusted {
		if f.Trusted, err = IsTrusted(opts.ConfigDir, opts.Home, opts.Cwd); err != nil {
			return nil, nil, err
		}
	}
	return l.Context(f)
}
