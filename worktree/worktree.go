// Package worktree gives a session a git worktree of its own: created under the main
// repository's .claude/worktrees/NAME on the branch worktree-NAME, listed, and removed with the
// branch, so that agents working in parallel do not trample each other's files.
//
// Every git run is a bounded command (a timeout, capped output, its process group ended) that
// runs none of the repository's hooks (core.hooksPath is /dev/null: `worktree add` would run
// post-checkout) nor its fsmonitor, and reads no system or global configuration. A worktree's
// trust and protected paths are its main repository's (package worktree/gitdir).
package worktree

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/reinsdev/reins/worktree/gitdir"
)

// Worktree is a worktree a session made.
type Worktree struct {
	Name string `json:"name"`
	// Path is the worktree's top folder; Branch its branch; Base the commit it started at.
	Path   string `json:"path"`
	Branch string `json:"branch"`
	Base   string `json:"base"`
	// Main is the main working tree's top folder.
	Main string `json:"main"`
	// created are the folders Create made on the way to Path (.claude, .claude/worktrees),
	// removed again when they are empty.
	created []string
}

// Dir is where the worktrees of a main working tree live.
func Dir(main string) string { return filepath.Join(main, ".claude", "worktrees") }

// BranchOf is the branch of the worktree named name.
func BranchOf(name string) string { return "worktree-" + name }

// validName reports a name of 1 to 64 letters, digits, '.', '_' and '-', starting with a
// letter or digit. (A regexp with {0,63} costs 60 KB at every start of reins.)
func validName(name string) bool {
	if len(name) == 0 || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || c != '.' && c != '_' && c != '-') {
			return false
		}
	}
	return true
}

// CheckName checks a worktree name: letters, digits, '.', '_' and '-', at most 64, not
// starting with a punctuation mark (no "..", no option-looking "-x", no hidden folder).
func CheckName(name string) error {
	if !validName(name) || strings.Contains(name, "..") || strings.HasSuffix(name, ".lock") {
		return fmt.Errorf("worktree name %q: use letters, digits, '.', '_' and '-' (at most 64, starting with a letter or digit)", name)
	}
	return nil
}

// NewName is a name for a worktree nobody named.
func NewName() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return "session-" + hex.EncodeToString(b)
}

// ErrInWorktree refuses a worktree made from inside another linked worktree.
var ErrInWorktree = errors.New("already in a linked worktree: start from the main working tree")

// Create makes a worktree named name ("" for a new name) of the repository dir is in, on a new
// branch from HEAD. It returns the worktree and the folder inside it that stands for dir (dir's
// place relative to the top, so a session started in a subfolder starts there again).
func Create(ctx context.Context, g *Git, dir, name string) (*Worktree, string, error) {
	if name == "" {
		name = NewName()
	}
	if err := CheckName(name); err != nil {
		return nil, "", err
	}
	repo, err := gitdir.Find(dir)
	if err != nil {
		return nil, "", fmt.Errorf("worktree: %s: %w", dir, err)
	}
	if repo.Linked {
		return nil, "", ErrInWorktree
	}
	rel, err := filepath.Rel(repo.Top, dir)
	if err != nil || strings.HasPrefix(rel, "..") {
		return nil, "", fmt.Errorf("worktree: %s is not inside %s", dir, repo.Top)
	}
	base, err := g.Output(ctx, repo.Top, "rev-parse", "--verify", "HEAD^{commit}")
	if err != nil {
		return nil, "", fmt.Errorf("worktree: the repository has no commit to branch from: %w", err)
	}
	w := &Worktree{Name: name, Path: filepath.Join(Dir(repo.Top), name), Branch: BranchOf(name), Base: strings.TrimSpace(base), Main: repo.Top}
	if _, err := os.Lstat(w.Path); err == nil {
		return nil, "", fmt.Errorf("worktree: %s already exists", w.Path)
	}
	for _, d := range []string{filepath.Join(repo.Top, ".claude"), Dir(repo.Top)} {
		if _, err := os.Lstat(d); errors.Is(err, os.ErrNotExist) {
			if err := os.Mkdir(d, 0o755); err != nil {
				return nil, "", fmt.Errorf("worktree: %w", err)
			}
			w.created = append(w.created, d)
		}
	}
	if _, err := g.Output(ctx, repo.Top, "worktree", "add", "-b", w.Branch, "--", w.Path, w.Base); err != nil {
		w.removeCreated()
		return nil, "", fmt.Errorf("worktree: %w", err)
	}
	return w, filepath.Join(w.Path, rel), nil
}

// Entry is one worktree as git lists it.
type Entry struct {
	Path, Head, Branch string
	Bare, Detached     bool
}

// List is `git worktree list` of the repository dir is in.
func List(ctx context.Context, g *Git, dir string) ([]Entry, error) {
	out, err := g.Output(ctx, dir, "worktree", "list", "--porcelain", "-z")
	if err != nil {
		return nil, fmt.Errorf("worktree list: %w", err)
	}
	var es []Entry
	var cur *Entry
	for _, f := range strings.Split(out, "\x00") {
		k, v, _ := strings.Cut(f, " ")
		switch k {
		case "":
			cur = nil
		case "worktree":
			es = append(es, Entry{Path: v})
			cur = &es[len(es)-1]
		case "HEAD":
			if cur != nil {
				cur.Head = v
			}
		case "branch":
			if cur != nil {
				cur.Branch = strings.TrimPrefix(v, "refs/heads/")
			}
		case "bare":
			if cur != nil {
				cur.Bare = true
			}
		case "detached":
			if cur != nil {
				cur.Detached = true
			}
		}
	}
	return es, nil
}

// Changes says what removing w would lose: uncommitted changes and untracked files, and
// commits on its branch since it was made. Empty when nothing.
func Changes(ctx context.Context, g *Git, w *Worktree) ([]string, error) {
	var out []string
	st, err := g.Output(ctx, w.Path, "status", "--porcelain=v1", "--untracked-files=all")
	if err != nil {
		return nil, fmt.Errorf("worktree status: %w", err)
	}
	if n := strings.Count(strings.TrimRight(st, "\n"), "\n") + 1; strings.TrimSpace(st) != "" {
		out = append(out, fmt.Sprintf("%d uncommitted or untracked files", n))
	}
	cnt, err := g.Output(ctx, w.Path, "rev-list", "--count", w.Base+".."+w.Branch)
	if err != nil {
		return nil, fmt.Errorf("worktree: counting the branch's commits: %w", err)
	}
	if c := strings.TrimSpace(cnt); c != "0" {
		out = append(out, fmt.Sprintf("%s commits on %s", c, w.Branch))
	}
	return out, nil
}

// ErrChanges refuses to remove a worktree that has changes, unless discarded.
var ErrChanges = errors.New("the worktree has changes")

// Remove removes w and its branch. With changes (see Changes) it refuses unless discard is set.
// The folders Create made for it go too when they are empty, so the main working tree is as it
// was before.
func Remove(ctx context.Context, g *Git, w *Worktree, discard bool) error {
	if !discard {
		ch, err := Changes(ctx, g, w)
		if err != nil {
			return err
		}
		if len(ch) > 0 {
			return fmt.Errorf("%w (%s): keep it, or remove it discarding them", ErrChanges, strings.Join(ch, ", "))
		}
	}
	args := []string{"worktree", "remove"}
	if discard {
		args = append(args, "--force")
	}
	if _, err := g.Output(ctx, w.Main, append(args, "--", w.Path)...); err != nil {
		return fmt.Errorf("worktree remove: %w", err)
	}
	if _, err := g.Output(ctx, w.Main, "branch", "-D", "--", w.Branch); err != nil {
		return fmt.Errorf("worktree: deleting the branch %s: %w", w.Branch, err)
	}
	w.removeCreated()
	return nil
}

// removeCreated removes the folders Create made, deepest first, when they are empty.
func (w *Worktree) removeCreated() {
	for i := len(w.created) - 1; i >= 0; i-- {
		_ = os.Remove(w.created[i]) // fails, as it should, when something else is there
	}
}
