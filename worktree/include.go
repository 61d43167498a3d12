package worktree

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/reinsdev/reins/boundedfile"
	"github.com/reinsdev/reins/pathrule"
)

// IncludeFile names, in the main working tree, the ignored files a new worktree gets copies of
// (gitignore patterns, one a line): a fresh checkout has none of them (.env, local config).
const IncludeFile = ".worktreeinclude"

// Bounds of the copy: a .worktreeinclude that names a dependency folder must not copy
// gigabytes in the session's start.
const (
	maxIncludeFiles = 1000
	maxIncludeBytes = 64 << 20
)

// Included is what CopyIncluded did.
type Included struct {
	// Copied are the files copied (paths relative to the top); Held the secret files that
	// were not, because no one said yes.
	Copied, Held []string
	// Notes say what else was left out and why.
	Notes []string
}

// CopyIncluded copies into w the files of the main working tree that are ignored by git and
// named by its .worktreeinclude. A file isSecret says holds secrets (a .env) is copied only if
// confirm, asked once with all of them, says yes; a nil confirm (headless) copies none of them.
// Symlinks and special files are never copied; the copy is bounded in files and bytes.
func CopyIncluded(ctx context.Context, g *Git, w *Worktree, isSecret func(path string) bool, confirm func(secrets []string) bool) (Included, error) {
	var res Included
	pats, err := includePatterns(ctx, filepath.Join(w.Main, IncludeFile))
	if err != nil || len(pats) == 0 {
		return res, err
	}
	out, err := g.Output(ctx, w.Main, "ls-files", "--others", "--ignored", "--exclude-standard", "-z")
	if err != nil {
		return res, fmt.Errorf("%s: %w", IncludeFile, err)
	}
	var plain, secret []string
	for _, rel := range strings.Split(out, "\x00") {
		if rel == "" || !matchesAny(pats, rel) {
			continue
		}
		if isSecret != nil && isSecret(filepath.Join(w.Main, rel)) {
			secret = append(secret, rel)
		} else {
			plain = append(plain, rel)
		}
	}
	if len(secret) > 0 {
		if confirm != nil && confirm(secret) {
			plain = append(plain, secret...)
		} else {
			res.Held = secret
			res.Notes = append(res.Notes, fmt.Sprintf("%s: %d secret files were not copied (no one said yes): %s", IncludeFile, len(secret), strings.Join(secret, ", ")))
		}
	}
	var total int64
	for i, rel := range plain {
		if i == maxIncludeFiles {
			res.Notes = append(res.Notes, fmt.Sprintf("%s: only the first %d files were copied", IncludeFile, maxIncludeFiles))
			break
		}
		n, err := copyRegular(filepath.Join(w.Main, rel), filepath.Join(w.Path, rel), maxIncludeBytes-total)
		if err != nil {
			res.Notes = append(res.Notes, fmt.Sprintf("%s: %s not copied: %v", IncludeFile, rel, err))
			continue
		}
		total += n
		res.Copied = append(res.Copied, rel)
	}
	return res, nil
}

func includePatterns(ctx context.Context, path string) ([]*pathrule.Pattern, error) {
	data, err := boundedfile.Read(ctx, path, boundedfile.Limits{MaxBytes: 64 << 10})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	var pats []*pathrule.Pattern
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		p, err := pathrule.Compile(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		pats = append(pats, p)
	}
	return pats, nil
}

func matchesAny(pats []*pathrule.Pattern, rel string) bool {
	for _, p := range pats {
		if p.Match(filepath.ToSlash(rel), false) {
			return true
		}
	}
	return false
}

// copyRegular copies the regular file src to dst (its folders made), at most room bytes.
func copyRegular(src, dst string, room int64) (int64, error) {
	info, err := os.Lstat(src)
	switch {
	case err != nil:
		return 0, err
	case !info.Mode().IsRegular():
		return 0, fmt.Errorf("not a regular file")
	case info.Size() > room:
		return 0, fmt.Errorf("over the %d MiB the copies may take", maxIncludeBytes>>20)
	}
	in, err := os.Open(src)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return 0, err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, info.Mode().Perm())
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, io.LimitReader(in, room))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// localSettings are the person's own settings files of a project, which git ignores and a
// fresh worktree lacks: their deny and ask rules must hold in the worktree as in the main tree.
var localSettings = []string{filepath.Join(".claude", "settings.local.json"), filepath.Join(".reins", "settings.local.json")}

// CopyLocalSettings copies the main working tree's local settings files into w where w has
// none, so that a session in the worktree decides as one in the main tree would. It returns
// the files copied.
func CopyLocalSettings(w *Worktree) ([]string, error) {
	var out []string
	for _, rel := range localSettings {
		src, dst := filepath.Join(w.Main, rel), filepath.Join(w.Path, rel)
		if _, err := os.Lstat(dst); err == nil {
			continue
		}
		if _, err := os.Lstat(src); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if _, err := copyRegular(src, dst, 4<<20); err != nil {
			return out, fmt.Errorf("copying %s into the worktree: %w", rel, err)
		}
		out = append(out, rel)
	}
	return out, nil
}
