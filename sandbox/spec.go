package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// mustNotCreate are protected names that matter even before they exist: creating one would
// hand the next session (or git) code to run, so a command may not create them either.
var mustNotCreate = map[string]bool{".claude": true, ".reins": true, ".mcp.json": true}

// buildSpec turns the configuration into concrete paths: the write roots, the protected paths
// inside them and the read-denied paths.
func buildSpec(cfg Config) Spec {
	var sp Spec
	for _, d := range cfg.WorkingDirs {
		addPath(&sp.WriteRoots, resolve(d))
	}
	addPath(&sp.WriteRoots, cfg.TempDir)
	for _, p := range cfg.AllowWrite {
		if exists(p.Path) {
			addPath(&sp.WriteRoots, resolve(p.Path))
		}
	}
	protectPaths(&sp, cfg)
	for _, p := range cfg.DenyRead {
		if exists(p.Path) {
			addPath(&sp.ReadDeny, resolve(p.Path))
		}
	}
	sp.ReadDeny = outermost(sp.ReadDeny)
	for _, s := range cfg.AllowUnixSockets {
		addPath(&sp.UnixSockets, s)
	}
	sp.LocalBinding = cfg.AllowLocalBinding
	sp.Helper = cfg.Helper
	return sp
}

func addPath(list *[]string, p string) {
	p = filepath.Clean(p)
	if !slices.Contains(*list, p) {
		*list = append(*list, p)
	}
}

// protectPaths fills WriteDeny and MustNotCreate: the protected names at the top of each write
// root, .git's hooks and config, the home folder's rc files, the settings files and denyWrite,
// as far as they lie inside a write root (elsewhere everything is read-only already).
func protectPaths(sp *Spec, cfg Config) {
	protect := func(p string, mustNot bool) {
		p = filepath.Clean(p)
		if p == cfg.TempDir || !slices.ContainsFunc(sp.WriteRoots, func(r string) bool { return within(p, r) }) {
			return
		}
		switch {
		case exists(p):
			addPath(&sp.WriteDeny, p)
		case mustNot:
			addPath(&sp.MustNotCreate, p)
		}
	}
	for _, r := range sp.WriteRoots {
		if r == cfg.TempDir || !isDir(r) {
			continue
		}
		for _, d := range cfg.ProtectedDirs {
			if d != ".git" {
				protect(filepath.Join(r, d), mustNotCreate[d])
				continue
			}
			git := filepath.Join(r, ".git")
			if isDir(git) {
				// Git must still commit, so only what runs code is kept read-only.
				protect(filepath.Join(git, "hooks"), true)
				protect(filepath.Join(git, "config"), true)
			} else {
				// A .git file names the repository's folder; rewriting it would point git at
				// hooks of the command's choosing.
				protect(git, false)
			}
		}
		for _, f := range cfg.ProtectedFiles {
			protect(filepath.Join(r, f), mustNotCreate[f])
		}
	}
	if cfg.Home != "" {
		for _, f := range cfg.ProtectedFiles {
			protect(filepath.Join(cfg.Home, f), false)
		}
	}
	for _, p := range cfg.ProtectedPaths {
		protect(p, true)
	}
	for _, p := range cfg.DenyWrite {
		protect(resolve(p.Path), true)
	}
	sp.WriteDeny = outermost(sp.WriteDeny)
	sp.MustNotCreate = slices.DeleteFunc(outermost(sp.MustNotCreate), func(p string) bool {
		return slices.ContainsFunc(sp.WriteDeny, func(d string) bool { return within(p, d) })
	})
}

// outermost drops paths that lie inside another path of the list, and sorts it.
func outermost(ps []string) []string {
	slices.Sort(ps)
	var out []string
	for _, p := range ps {
		if len(out) > 0 && within(p, out[len(out)-1]) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// within reports whether p is dir or inside it.
func within(p, dir string) bool {
	if p == dir || dir == "/" {
		return true
	}
	return strings.HasPrefix(p, dir+string(filepath.Separator))
}

// resolve returns p with symlinks resolved where it exists, so the kernel's view and ours agree.
func resolve(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
