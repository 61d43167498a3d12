package settings

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/posjson"
	"github.com/reinsdev/reins/worktree/gitdir"
)

// trustFileName is the file under the config folder that lists trusted projects:
//
//	{
//	  "trustedProjects": [
//	    "/home/me/src/app"
//	  ]
//	}
//
// Other keys in it are kept when it is rewritten.
const trustFileName = "trusted-projects.json"

const trustKey = "trustedProjects"

// WaitsForTrust says whether what a file of source src would grant waits for the project's
// trust: the shared project files and the local ones alike. The local files are the person's
// own only by convention; a repository can commit .claude/settings.local.json as easily as
// .claude/settings.json, and a clone cannot tell which it got.
func WaitsForTrust(src permission.Source) bool {
	return src == permission.SourceProject || src == permission.SourceLocal
}

// localWaits is added to a warning about a local file's setting set aside before trust: the
// person may have written the file themselves and would otherwise wonder why it is ignored.
const localWaits = "; local settings wait for trust too, as a repository can commit them"

// waitsNote is localWaits for a local file and nothing for any other.
func waitsNote(src permission.Source) string {
	if src == permission.SourceLocal {
		return localWaits
	}
	return ""
}

func trustFile(configDir string) string { return filepath.Join(configDir, trustFileName) }

// Trust records dir, with its symlinks resolved, as a trusted project under configDir. Trusting
// a folder trusts the folders below it, but not another repository beneath it (see IsTrusted).
// The folder must exist, and must not be too broad to trust (a *TooBroadError: the
// file-system root, home, a folder above home, a shared temporary folder). home is the home
// folder ("" knows none).
func Trust(configDir, home, dir string) error { return trust(hooks{}, configDir, home, dir) }

// TooBroadError is a folder that may not be trusted: trusting it would trust every project
// beneath it, the ones cloned or unpacked there later included.
type TooBroadError struct {
	Dir string
	// Why says what the folder is ("the file-system root").
	Why string
}

func (e *TooBroadError) Error() string {
	return fmt.Sprintf("cannot trust %s: it is %s, and trusting it would trust every project beneath it, including any cloned or unpacked there later", e.Dir, e.Why)
}

// sharedTempDirs are the folders anyone on the machine, and every download, can put a project
// in.
var sharedTempDirs = []string{"/tmp", "/var/tmp", "/dev/shm"}

// CheckTrustable returns a *TooBroadError when dir (absolute, symlinks resolved) may not be
// trusted, or nil. Claude Code never keeps its trust of the home folder either.
func CheckTrustable(home, dir string) error {
	dir = filepath.Clean(dir)
	if filepath.Dir(dir) == dir {
		return &TooBroadError{Dir: dir, Why: "the file-system root"}
	}
	if home != "" {
		homes := []string{filepath.Clean(home)}
		if r, err := filepath.EvalSymlinks(home); err == nil && r != homes[0] {
			homes = append(homes, r)
		}
		for _, h := range homes {
			switch {
			case dir == h:
				return &TooBroadError{Dir: dir, Why: "your home folder"}
			case within(h, dir):
				return &TooBroadError{Dir: dir, Why: "a folder above your home folder"}
			}
		}
	}
	temps := append(slices.Clone(sharedTempDirs), filepath.Clean(os.TempDir()))
	for _, t := range temps {
		if dir == t {
			return &TooBroadError{Dir: dir, Why: "a shared temporary folder"}
		}
	}
	return nil
}

func trust(h hooks, configDir, home, dir string) error {
	if configDir == "" {
		return errors.New("trusting a project: no config folder")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("trusting %s: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return fmt.Errorf("trusting %s: %w", dir, err)
	}
	for _, d := range []string{filepath.Clean(abs), real} {
		if err := CheckTrustable(home, d); err != nil {
			return err
		}
	}
	path := trustFile(configDir)
	// Locked, so that concurrent `reins trust` runs each record their folder.
	return withFileLock(path, 0o700, func() error {
		root, list, err := readTrust(h, path)
		if err != nil {
			return err
		}
		if slices.Contains(list, real) {
			return nil
		}
		arr := root.Get(trustKey)
		if arr == nil || arr.Kind != posjson.Array {
			arr = posjson.NewArray()
			root.Set(trustKey, arr)
		}
		arr.Elems = append(arr.Elems, posjson.NewString(real))
		return writeAtomic(h, path, root.Marshal(), 0o600, 0o700)
	})
}

// IsTrusted reports whether dir, or a folder above it, was trusted under configDir. Both dir
// and the recorded folders are compared with their symlinks resolved. A trusted folder covers
// the folders below it up to another repository: a folder with a .git entry of its own (a
// clone, a submodule) below the trusted one is another project, trusted only by its own entry.
// A recorded folder too broad to trust (CheckTrustable, with home) covers nothing. A folder in
// a linked git worktree is trusted if and only if the worktree's main repository is: its hooks
// and configuration, the code git runs there, live in the main repository, wherever the
// worktree is (a trusted folder holding a worktree of an untrusted repository is not trusted).
func IsTrusted(configDir, home, dir string) (bool, error) {
	if configDir == "" {
		return false, nil
	}
	target, err := resolvePath(dir)
	if err != nil {
		return false, fmt.Errorf("checking trust of %s: %w", dir, err)
	}
	root, linked, err := gitdir.TrustRoot(target)
	if err != nil {
		return false, fmt.Errorf("checking trust of %s: %w", dir, err)
	}
	if linked {
		target = root
	}
	_, list, err := readTrust(hooks{}, trustFile(configDir))
	if err != nil {
		return false, err
	}
	for _, t := range list {
		forms := []string{filepath.Clean(t)}
		if real, err := filepath.EvalSymlinks(t); err == nil && real != forms[0] {
			forms = append(forms, real)
		}
		for _, f := range forms {
			if within(target, f) && CheckTrustable(home, f) == nil && !repositoryBetween(target, f) {
				return true, nil
			}
		}
	}
	return false, nil
}

// repositoryBetween reports whether a folder from p up to, but not including, top holds
// another repository than top's: p is then in it.
func repositoryBetween(p, top string) bool {
	for d := p; d != top && within(d, top); d = filepath.Dir(d) {
		if otherRepository(d, top) {
			return true
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return false
}

// otherRepository reports whether dir's .git entry makes it another repository than one
// inside top: a .git folder (a clone) or a .git file naming a submodule's repository. A .git
// file of a worktree whose repository is inside top is the same repository checked out again
// (git worktree add, Claude Code's .claude/worktrees). Anything that cannot be read is another
// repository: the answer must not be "trusted" by mistake.
func otherRepository(dir, top string) bool {
	p := filepath.Join(dir, ".git")
	info, err := os.Lstat(p)
	switch {
	case err != nil:
		return false
	case !info.Mode().IsRegular() || info.Size() > 4096:
		return true
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return true
	}
	gitdir, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
	if !ok {
		return true
	}
	gitdir = strings.TrimSpace(gitdir)
	if !filepath.IsAbs(gitdir) {
		gitdir = filepath.Join(dir, gitdir)
	}
	gitdir = filepath.Clean(gitdir)
	worktrees := filepath.Dir(gitdir)
	if filepath.Base(worktrees) != "worktrees" || filepath.Base(filepath.Dir(worktrees)) != ".git" {
		return true
	}
	return !within(filepath.Dir(filepath.Dir(worktrees)), top)
}

// within reports whether p is dir or below it. Both are clean absolute paths.
func within(p, dir string) bool {
	if p == dir || dir == string(filepath.Separator) {
		return true
	}
	return strings.HasPrefix(p, dir+string(filepath.Separator))
}

// readTrust reads the trust file: its document (an empty object when missing) and the
// absolute folders it lists.
func readTrust(h hooks, path string) (*posjson.Value, []string, error) {
	data, _, err := readDoc(h, path)
	if err != nil {
		return nil, nil, err
	}
	if len(strings.TrimSpace(string(data))) == 0 {
		return posjson.NewObject(), nil, nil
	}
	idx := posjson.NewLines(data)
	errAt := func(off int, format string, args ...any) error { return idx.Errorf(path, off, format, args...) }
	root, err := posjson.Parse(data)
	if err != nil {
		var pe *posjson.OffsetError
		if errors.As(err, &pe) {
			return nil, nil, errAt(pe.Off, "%s", pe.Msg)
		}
		return nil, nil, err
	}
	if root.Kind != posjson.Object {
		return nil, nil, errAt(root.Off, "trust file must be a JSON object, not %s", root.Kind)
	}
	arr := root.Get(trustKey)
	if arr == nil || arr.Kind == posjson.Null {
		return root, nil, nil
	}
	if arr.Kind != posjson.Array {
		return nil, nil, errAt(arr.Off, "%s must be an array of strings, not %s", trustKey, arr.Kind)
	}
	var list []string
	for _, el := range arr.Elems {
		if el.Kind == posjson.String && filepath.IsAbs(el.Str) {
			list = append(list, el.Str)
		}
	}
	return root, list, nil
}
