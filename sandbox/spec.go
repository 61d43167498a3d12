package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

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

// protectPaths fills WriteDeny, MustNotCreate and MissingDirs: every protected name at the
// top of each write root, the hooks and config of the working directories' repositories (their
// own and nested ones, see [findRepos]), the home folder's rc files, the settings files and
// denyWrite, as far as they lie inside a write root (elsewhere everything is read-only
// already). A protected path that does not exist must not be created either: a command that
// runs `git init` or writes .envrc hands code to whatever runs there after it, outside the
// sandbox.
func protectPaths(sp *Spec, cfg Config) {
	var missingDirs []string
	protect := func(p string, dir bool) {
		p = filepath.Clean(p)
		if p == cfg.TempDir || !slices.ContainsFunc(sp.WriteRoots, func(r string) bool { return within(p, r) }) {
			return
		}
		switch {
		case exists(p):
			addPath(&sp.WriteDeny, p)
		default:
			addPath(&sp.MustNotCreate, p)
			if dir {
				addPath(&missingDirs, p)
			}
		}
	}
	for _, r := range sp.WriteRoots {
		if r == cfg.TempDir || !isDir(r) {
			continue
		}
		for _, d := range cfg.ProtectedDirs {
			if d == ".git" {
				protectRepo(protect, filepath.Join(r, d))
			} else {
				protect(filepath.Join(r, d), true)
			}
		}
		for _, f := range cfg.ProtectedFiles {
			protect(filepath.Join(r, f), false)
		}
	}
	if slices.Contains(cfg.ProtectedDirs, ".git") {
		for _, wd := range cfg.WorkingDirs {
			repos, complete := findRepos(resolve(wd), maxRepoWalk)
			sp.repos = append(sp.repos, repos...)
			if !complete {
				sp.reposCut = append(sp.reposCut, resolve(wd))
			}
			for _, g := range repos {
				protectRepo(protect, g)
			}
		}
	}
	if cfg.Home != "" {
		for _, f := range cfg.ProtectedFiles {
			protect(filepath.Join(cfg.Home, f), false)
		}
	}
	for _, p := range cfg.ProtectedPaths {
		protect(p, false)
	}
	for _, p := range cfg.DenyWrite {
		protect(resolve(p.Path), false)
	}
	sp.WriteDeny = outermost(sp.WriteDeny)
	sp.MustNotCreate = slices.DeleteFunc(outermost(sp.MustNotCreate), func(p string) bool {
		return slices.ContainsFunc(sp.WriteDeny, func(d string) bool { return within(p, d) })
	})
	for _, p := range missingDirs {
		if slices.Contains(sp.MustNotCreate, p) {
			sp.MissingDirs = append(sp.MissingDirs, p)
		}
	}
}

// protectRepo protects what of the repository at git (a .git entry) runs code: only its hooks
// and config when it is a folder, since git must still commit; the whole entry when it is a
// file, which names the repository's folder (rewriting it would point git at hooks of the
// command's choosing); the entry itself, as a folder, when it is missing or an empty folder
// (no repository yet: git needs nothing written there, and a command could make it one).
// Submodules' repositories under modules/ get the same as the folder.
func protectRepo(protect func(p string, dir bool), git string) {
	switch {
	case isDir(git) && !isEmptyDir(git):
		for _, g := range append([]string{git}, moduleRepos(git)...) {
			protect(filepath.Join(g, "hooks"), true)
			protect(filepath.Join(g, "config"), false)
		}
	case exists(git):
		protect(git, false)
	default:
		protect(git, true)
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
