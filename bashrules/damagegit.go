package bashrules

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// Git is what the damage count asks git: which of the files a command would destroy git does
// not track or ignores, and which tracked files have changes a git command would discard. The
// analysis itself never runs a program, so the caller provides it ([WithGit]); bashrules/gitcli
// is the one that runs the git CLI.
type Git interface {
	// Status reports on paths (absolute, below dir's repository): the files and folders git
	// does not track or ignores, and the tracked files with uncommitted changes. A folder is
	// reported whole, with a trailing slash, when everything below it is untracked or
	// ignored. Root is "" when dir is in no repository.
	Status(ctx context.Context, dir string, paths []string) (GitStatus, error)
}

// GitStatus is git's report on some paths; every path in it is absolute.
type GitStatus struct {
	Root      string
	Untracked []string
	Ignored   []string
	Changed   []GitChange
	// Truncated marks a report cut at its bound: what it lacks is counted as tracked and
	// unchanged, so a count built on it is a floor, which AtLeast says.
	Truncated bool
}

// GitChange is a tracked file with uncommitted changes: in the work tree (Work) or staged
// in the index (Staged).
type GitChange struct {
	Path         string
	Staged, Work bool
}

type gitKey struct{}

// WithGit returns a context whose Bash decisions ask g about git.
func WithGit(ctx context.Context, g Git) context.Context {
	return context.WithValue(ctx, gitKey{}, g)
}

func gitFrom(ctx context.Context) Git {
	if g, ok := ctx.Value(gitKey{}).(Git); ok && g != nil {
		return g
	}
	return noGit{}
}

// errNoGit is noGit's answer inside a repository.
var errNoGit = errors.New("git is not available to the analysis")

// noGit stands in when the caller provides no Git: a folder in no repository is known to be
// untracked without git; inside one, nothing is known.
type noGit struct{}

func (noGit) Status(_ context.Context, dir string, _ []string) (GitStatus, error) {
	if repoAbove(dir) {
		return GitStatus{}, errNoGit
	}
	return GitStatus{}, nil
}

// repoAbove reports whether dir or a folder above it holds .git.
func repoAbove(dir string) bool {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return true
		}
		if filepath.Dir(d) == d {
			return false
		}
	}
}

// gitState is what git said about one file.
type gitState uint8

const (
	gitTracked gitState = iota
	gitUntracked
	gitIgnored
	gitUnknown // git could not be asked
)

// gitView is the git reports of one decision, by the folder they were asked for.
type gitView struct {
	reports []gitReport
}

type gitReport struct {
	dir       string // the folder asked about
	st        GitStatus
	err       error
	untracked map[string]bool // exact paths and "dir/" prefixes
	ignored   map[string]bool
	dirs      map[string]gitState // folders' answers (see state)
}

func newGitReport(dir string, st GitStatus, err error) gitReport {
	r := gitReport{dir: dir, st: st, err: err, untracked: map[string]bool{}, ignored: map[string]bool{}}
	for _, p := range st.Untracked {
		r.untracked[p] = true
	}
	for _, p := range st.Ignored {
		r.ignored[p] = true
	}
	return r
}

// state says what git knows of p.
func (v *gitView) state(p string) gitState {
	var best *gitReport
	for i := range v.reports {
		r := &v.reports[i]
		if within(p, r.dir) && (best == nil || len(r.dir) > len(best.dir)) {
			best = r
		}
	}
	switch {
	case best == nil || best.err != nil:
		return gitUnknown
	case best.st.Root == "":
		return gitUntracked // in no repository: git has no copy of it
	case len(best.untracked) == 0 && len(best.ignored) == 0:
		return gitTracked
	}
	return best.state(p)
}

// state looks p up, then its folders, each folder's answer kept: a walk asks about every
// file of a few folders.
func (r *gitReport) state(p string) gitState {
	switch {
	case r.untracked[p] || r.untracked[p+"/"]:
		return gitUntracked
	case r.ignored[p] || r.ignored[p+"/"]:
		return gitIgnored
	case !within(p, r.st.Root) || p == r.st.Root:
		return gitTracked
	}
	dir := filepath.Dir(p)
	if s, ok := r.dirs[dir]; ok {
		return s
	}
	s := r.state(dir)
	if r.dirs == nil {
		r.dirs = map[string]gitState{}
	}
	r.dirs[dir] = s
	return s
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	// "/" is also the marker of a whole repository (wholeRepo), on every system.
	return p == dir || dir == "/" || isRoot(dir) || strings.HasPrefix(p, dir+string(filepath.Separator))
}
