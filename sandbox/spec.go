package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// buildSpec is the spec of one command: the session's, with visible and writable (the
// caller's files) added.
func (s *Sandbox) buildSpec(visible, writable []string) Spec {
	s.mu.Lock()
	repos, cut := slices.Clone(s.repos), slices.Clone(s.reposCut)
	s.mu.Unlock()
	sp := buildSpec(s.cfg, repos)
	sp.reposCut = cut
	sp.ProxyPort, sp.Proxy = s.port, nil
	if s.conns != nil {
		sp.Proxy = s.conns.deliver
	}
	sp.Visible = append(sp.Visible, visible...)
	for _, w := range writable {
		sp.WriteRoots = append(sp.WriteRoots, filepath.Clean(w))
	}
	return sp
}

// buildSpec turns the configuration into concrete paths: the write roots, the protected paths
// inside them and the read-denied paths. nested are the .git entries below the working
// directories that the last search found. It reads the top of each write root and the
// repositories' hooks and config, not the tree: it runs before every command.
func buildSpec(cfg Config, nested []string) Spec {
	sp := Spec{TempDir: cfg.TempDir, Helper: cfg.Helper, LocalBinding: cfg.AllowLocalBinding}
	for _, d := range cfg.WorkingDirs {
		addPath(&sp.WriteRoots, resolve(d))
	}
	addPath(&sp.WriteRoots, cfg.TempDir)
	if cfg.CacheDir != "" {
		addPath(&sp.WriteRoots, cfg.CacheDir)
	}
	for _, p := range cfg.AllowWrite {
		if exists(p.Path) {
			addPath(&sp.WriteRoots, resolve(p.Path))
		}
	}
	protectPaths(&sp, cfg, nested)
	for _, p := range cfg.DenyRead {
		if exists(p.Path) {
			addPath(&sp.ReadDeny, resolve(p.Path))
		}
	}
	sp.ReadDeny = outermost(sp.ReadDeny)
	for _, s := range cfg.AllowUnixSockets {
		addPath(&sp.UnixSockets, s)
	}
	if cfg.Home != "" {
		sp.Visible = append(sp.Visible, cfg.Home)
	}
	sp.repos = nested
	return sp
}

func addPath(list *[]string, p string) {
	p = filepath.Clean(p)
	if !slices.Contains(*list, p) {
		*list = append(*list, p)
	}
}

// privateRoot reports whether r is one of the sandbox's own write roots (the temporary and
// cache folders), where nothing runs code later and nothing is protected.
func privateRoot(cfg Config, r string) bool {
	return r == cfg.TempDir || (cfg.CacheDir != "" && within(r, cfg.CacheDir))
}

// protectPaths fills WriteDeny and MustNotCreate: every protected name at the top of each
// write root, the hooks and config of the working directories' repositories (their own and
// the nested ones of the last search, see [findRepos]), the home folder's rc files, the
// settings files and denyWrite, as far as they lie inside a write root (elsewhere everything
// is read-only already). A protected path that does not exist must not be created either: a
// command that runs `git init` or writes .envrc hands code to whatever runs there after it,
// outside the sandbox.
func protectPaths(sp *Spec, cfg Config, nested []string) {
	protect := func(p string) {
		p = filepath.Clean(p)
		if !slices.ContainsFunc(sp.WriteRoots, func(r string) bool { return within(p, r) && !privateRoot(cfg, r) }) {
			return
		}
		if exists(p) {
			addPath(&sp.WriteDeny, p)
		} else {
			addPath(&sp.MustNotCreate, p)
		}
	}
	dirs, files := lowerSet(cfg.ProtectedDirs), lowerSet(cfg.ProtectedFiles)
	for _, r := range sp.WriteRoots {
		if privateRoot(cfg, r) || !isDir(r) {
			continue
		}
		present := map[string]string{} // lower-cased name → name
		if entries, err := os.ReadDir(r); err == nil {
			for _, e := range entries {
				present[strings.ToLower(e.Name())] = e.Name()
			}
		}
		for _, names := range []map[string]bool{dirs, files} {
			for n := range names {
				if n == ".git" {
					continue
				}
				if real, ok := present[n]; ok {
					addPath(&sp.WriteDeny, filepath.Join(r, real))
				} else {
					addPath(&sp.MustNotCreate, filepath.Join(r, n))
				}
			}
		}
		if dirs[".git"] {
			protectRepo(protect, filepath.Join(r, ".git"))
		}
	}
	if dirs[".git"] {
		for _, g := range nested {
			protectRepo(protect, g)
		}
	}
	if cfg.Home != "" {
		for _, f := range cfg.ProtectedFiles {
			protect(filepath.Join(cfg.Home, f))
		}
	}
	for _, p := range cfg.ProtectedPaths {
		protect(p)
	}
	for _, p := range cfg.DenyWrite {
		protect(resolve(p.Path))
	}
	sp.WriteDeny = outermost(sp.WriteDeny)
	sp.MustNotCreate = slices.DeleteFunc(outermost(sp.MustNotCreate), func(p string) bool {
		return slices.ContainsFunc(sp.WriteDeny, func(d string) bool { return within(p, d) })
	})
}

func lowerSet(names []string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[strings.ToLower(n)] = true
	}
	return m
}

// protectRepo protects what of the repository at git (a .git entry) runs code: only its hooks
// and config when it is a folder, since git must still commit; the whole entry when it is a
// file, which names the repository's folder (rewriting it would point git at hooks of the
// command's choosing); the entry itself when it is missing or an empty folder (no repository
// yet: a command that makes one is dealt with after it, see [guard.check]). Submodules'
// repositories under modules/ get the same as the folder.
func protectRepo(protect func(p string), git string) {
	switch {
	case isDir(git) && !isEmptyDir(git):
		for _, g := range append([]string{git}, moduleRepos(git)...) {
			protect(filepath.Join(g, "hooks"))
			protect(filepath.Join(g, "config"))
		}
	default:
		protect(git)
	}
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

func isEmptyDir(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	names, _ := f.Readdirnames(1)
	return len(names) == 0
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
