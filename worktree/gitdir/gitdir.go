// Package gitdir finds the git repository a folder belongs to by reading files — a .git
// folder, or a .git file and the commondir it leads to — without running git, so that the
// pure core (workspace trust in settings, protected paths in the permission context) can ask
// it. A linked worktree's code that runs (hooks, configuration) lives in its main repository:
// what trusts or protects a worktree must look there (Claude Code's CVE-2026-40068 was a trust
// bypass through a worktree's commondir).
package gitdir

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/reinsdev/reins/boundedfile"
)

// Repo is where a folder's repository keeps things.
type Repo struct {
	// Top is the working tree's top folder: where the .git entry is.
	Top string
	// GitDir is the repository folder of this working tree: Top/.git for a main working
	// tree, <main>/.git/worktrees/NAME for a linked one.
	GitDir string
	// CommonDir is the folder shared by every working tree: its config, hooks, objects and
	// refs. It is GitDir for a main working tree.
	CommonDir string
	// Main is the main working tree's top folder (CommonDir's parent when CommonDir is named
	// .git), or CommonDir for a bare repository.
	Main string
	// Linked says Top is a linked worktree (its .git is a file with a commondir).
	Linked bool
}

// maxGitFile bounds the .git file and commondir read: one line each.
var limits = boundedfile.Limits{MaxBytes: 4096}

// ErrNotRepo is Find's answer for a folder in no repository.
var ErrNotRepo = errors.New("not in a git repository")

// Find returns the repository of dir (an absolute path), looking at dir and each folder above
// it for a .git entry. A .git file that cannot be read or points nowhere is an error: a caller
// deciding trust must not fall back to the folder's own path.
func Find(dir string) (Repo, error) {
	for d := filepath.Clean(dir); ; {
		p := filepath.Join(d, ".git")
		info, err := os.Lstat(p)
		switch {
		case err == nil && info.IsDir():
			return Repo{Top: d, GitDir: p, CommonDir: p, Main: d}, nil
		case err == nil:
			return fromFile(d, p)
		case !errors.Is(err, fs.ErrNotExist):
			return Repo{}, fmt.Errorf("reading %s: %w", p, err)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return Repo{}, ErrNotRepo
		}
		d = parent
	}
}

// fromFile reads a .git file ("gitdir: X") and X's commondir.
func fromFile(top, p string) (Repo, error) {
	data, err := boundedfile.Read(context.Background(), p, limits)
	if err != nil {
		return Repo{}, fmt.Errorf("reading %s: %w", p, err)
	}
	line, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
	if !ok {
		return Repo{}, fmt.Errorf("%s is not a gitdir file", p)
	}
	gitDir := resolve(top, strings.TrimSpace(line))
	if info, err := os.Stat(gitDir); err != nil || !info.IsDir() {
		return Repo{}, fmt.Errorf("%s points to %s, which is not a folder", p, gitDir)
	}
	r := Repo{Top: top, GitDir: gitDir, CommonDir: gitDir}
	cd, err := boundedfile.Read(context.Background(), filepath.Join(gitDir, "commondir"), limits)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// A submodule's .git file: its repository lives in the superproject's .git/modules.
		r.Main = top
		return r, nil
	case err != nil:
		return Repo{}, fmt.Errorf("reading %s: %w", filepath.Join(gitDir, "commondir"), err)
	}
	r.CommonDir = resolve(gitDir, string(bytes.TrimSpace(cd)))
	if info, err := os.Stat(r.CommonDir); err != nil || !info.IsDir() {
		return Repo{}, fmt.Errorf("%s/commondir points to %s, which is not a folder", gitDir, r.CommonDir)
	}
	r.Linked = true
	r.Main = r.CommonDir
	if filepath.Base(r.CommonDir) == ".git" {
		r.Main = filepath.Dir(r.CommonDir)
	}
	return r, nil
}

// resolve makes p absolute against base and resolves its symlinks where it exists.
func resolve(base, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// ProtectedPaths are the paths of a linked worktree's repository where the code that runs
// lives, to protect from writes made inside the worktree: the shared hooks and configuration,
// and the worktree's own configuration. None for a folder that is not a linked worktree.
func (r Repo) ProtectedPaths() []string {
	if !r.Linked {
		return nil
	}
	return []string{filepath.Join(r.CommonDir, "hooks"), filepath.Join(r.CommonDir, "config"),
		filepath.Join(r.CommonDir, "info"), filepath.Join(r.GitDir, "config.worktree")}
}

// TrustRoot is the folder whose trust a folder in r stands for: the main working tree of a
// linked worktree, so that a worktree is trusted if and only if its main repository is.
// ok is false when dir is in no linked worktree (its own path decides).
func TrustRoot(dir string) (root string, ok bool, err error) {
	r, err := Find(dir)
	if errors.Is(err, ErrNotRepo) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	if !r.Linked {
		return "", false, nil
	}
	return r.Main, true, nil
}
