package app

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/sandbox"
	"github.com/reinsdev/reins/settings"
)

// SandboxOptions are what the OS sandbox of a session is built from beyond its settings.
type SandboxOptions struct {
	// Executable is the path of the reins binary, which the backends start inside the
	// sandbox as their helper.
	Executable func() (string, error)
	// Getenv reads REINS_SANDBOX_BACKEND.
	Getenv func(string) string
}

// maxReadDenyWalk bounds how many entries are looked at to find the paths a Read deny
// pattern covers.
const maxReadDenyWalk = 50000

// SandboxConfig turns the settings and the permission context pc into the sandbox's
// configuration. Notes say what could not be carried over completely.
func SandboxConfig(ctx context.Context, s *Settings, pc *permission.Context, o SandboxOptions) (sandbox.Config, []string, error) {
	sb, _ := s.Loaded.Sandbox(s.Trusted)
	helper, err := o.Executable()
	if err != nil {
		return sandbox.Config{}, nil, fmt.Errorf("sandbox: locating the reins binary: %w", err)
	}
	backends, err := sandboxBackends(o.Getenv)
	if err != nil {
		return sandbox.Config{}, nil, err
	}
	dirs, files := permission.ProtectedNames()
	cfg := sandbox.Config{
		WorkingDirs:       pc.WorkingDirs(),
		Home:              pc.Home(),
		ProtectedDirs:     dirs,
		ProtectedFiles:    files,
		ProtectedPaths:    pc.SettingsFiles(),
		AllowLocalBinding: sb.AllowLocalBinding,
		Helper:            helper,
		Backends:          backends,
	}
	toPaths := func(es []settings.SandboxEntry) []sandbox.Path {
		var out []sandbox.Path
		for _, e := range es {
			out = append(out, sandbox.Path{Path: e.Path, Origin: e.Origin})
		}
		return out
	}
	cfg.AllowWrite = toPaths(sb.AllowWrite)
	cfg.DenyWrite = toPaths(sb.DenyWrite)
	cfg.DenyRead = toPaths(sb.DenyRead)
	for _, e := range sb.AllowUnixSockets {
		cfg.AllowUnixSockets = append(cfg.AllowUnixSockets, e.Path)
	}
	for _, e := range sb.AllowedDomains {
		cfg.AllowedDomains = append(cfg.AllowedDomains, e.Value)
	}
	// WebFetch's domain rules speak for the network too, as in Claude Code.
	for _, b := range []permission.Behavior{permission.Allow, permission.Deny} {
		for _, r := range pc.ContentRules(b, "WebFetch") {
			d, ok := strings.CutPrefix(r.Value.Content, "domain:")
			if !ok || settings.CheckDomainPattern(d) != "" {
				continue
			}
			if b == permission.Allow {
				cfg.AllowedDomains = append(cfg.AllowedDomains, d)
			} else {
				cfg.DeniedDomains = append(cfg.DeniedDomains, d)
			}
		}
	}
	paths, notes := readDeniedPaths(ctx, pc)
	cfg.DenyRead = append(cfg.DenyRead, paths...)
	return cfg, notes, nil
}

// readDeniedPaths finds the existing paths the Read deny rules cover, for the sandbox to hide:
// it walks each rule's anchor folder (the working directories for patterns that match at any
// depth) and asks the permission context, so the patterns mean exactly what they mean to the
// Read tool. Files created later are not covered; the notes say where the walk stopped short.
func readDeniedPaths(ctx context.Context, pc *permission.Context) ([]sandbox.Path, []string) {
	var out []sandbox.Path
	var notes []string
	seen := map[string]bool{}
	for _, r := range pc.ContentRules(permission.Deny, "Read") {
		var bases []string
		if b := patternBase(r, pc); b != "" {
			bases = []string{b}
		} else {
			bases = pc.WorkingDirs()
		}
		walked := 0
		for _, base := range bases {
			_ = filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					return nil
				}
				if walked++; walked > maxReadDenyWalk {
					return fs.SkipAll
				}
				if pc.CheckRead(ctx, p).Behavior != permission.Deny {
					return nil
				}
				if !seen[p] {
					seen[p] = true
					out = append(out, sandbox.Path{Path: p, Origin: r.Describe()})
				}
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			})
		}
		if walked > maxReadDenyWalk {
			notes = append(notes, fmt.Sprintf("Read deny rule %s: only the first %d entries under %s were checked for the sandbox", r.Describe(), maxReadDenyWalk, strings.Join(bases, ", ")))
		}
	}
	return out, notes
}

// patternBase is the folder a Read rule's pattern is anchored in, down to its first component
// with a wildcard; "" for patterns that match at any depth below the working directory.
func patternBase(r *permission.Rule, pc *permission.Context) string {
	c := r.Value.Content
	var base string
	switch {
	case strings.HasPrefix(c, "//"):
		base, c = "/", c[2:]
	case c == "~" || strings.HasPrefix(c, "~/"):
		base, c = pc.Home(), strings.TrimPrefix(strings.TrimPrefix(c, "~"), "/")
	case strings.HasPrefix(c, "/"):
		base, c = r.Root, c[1:]
		if base == "" {
			base = pc.OriginalCwd()
		}
	default:
		return ""
	}
	for _, seg := range strings.Split(c, "/") {
		if seg == "" || strings.ContainsAny(seg, "*?[{\\") {
			break
		}
		base = filepath.Join(base, seg)
	}
	return base
}

// StartSandbox builds the session's sandbox when the settings enable it; nil when they do not.
// An enabled sandbox that cannot run is an error: reins never falls back to running commands
// unconfined. warn gets what could not be carried over completely.
func StartSandbox(ctx context.Context, s *Settings, pc *permission.Context, o SandboxOptions, warn func(string)) (*sandbox.Sandbox, error) {
	if !pc.Sandbox().Enabled {
		return nil, nil
	}
	cfg, notes, err := SandboxConfig(ctx, s, pc, o)
	if err != nil {
		return nil, err
	}
	for _, n := range notes {
		warn(n)
	}
	return sandbox.New(ctx, cfg)
}
