package settings

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reinsdev/reins/permission"
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
// a folder trusts everything below it. The folder must exist.
func Trust(configDir, dir string) error { return trust(hooks{}, configDir, dir) }

func trust(h hooks, configDir, dir string) error {
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
		arr := root.get(trustKey)
		if arr == nil || arr.kind != kindArray {
			arr = newArray()
			root.set(trustKey, arr)
		}
		arr.elems = append(arr.elems, newString(real))
		return writeAtomic(h, path, root.marshal(), 0o600, 0o700)
	})
}

// IsTrusted reports whether dir, or a folder above it, was trusted under configDir. Both dir
// and the recorded folders are compared with their symlinks resolved. A folder in a linked git
// worktree is trusted if and only if the worktree's main repository is: its hooks and
// configuration, the code git runs there, live in the main repository, wherever the worktree
// is (a trusted folder holding a worktree of an untrusted repository is not trusted).
func IsTrusted(configDir, dir string) (bool, error) {
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
			if within(target, f) {
				return true, nil
			}
		}
	}
	return false, nil
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
func readTrust(h hooks, path string) (*value, []string, error) {
	data, _, err := readDoc(h, path)
	if err != nil {
		return nil, nil, err
	}
	if len(strings.TrimSpace(string(data))) == 0 {
		return newObject(), nil, nil
	}
	idx := newLineIndex(data)
	errAt := func(off int, format string, args ...any) error {
		line, col := idx.pos(off)
		return &ParseError{File: path, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
	}
	root, err := parseJSON(data)
	if err != nil {
		var pe *posError
		if errors.As(err, &pe) {
			return nil, nil, errAt(pe.off, "%s", pe.msg)
		}
		return nil, nil, err
	}
	if root.kind != kindObject {
		return nil, nil, errAt(root.off, "trust file must be a JSON object, not %s", root.kind)
	}
	arr := root.get(trustKey)
	if arr == nil || arr.kind == kindNull {
		return root, nil, nil
	}
	if arr.kind != kindArray {
		return nil, nil, errAt(arr.off, "%s must be an array of strings, not %s", trustKey, arr.kind)
	}
	var list []string
	for _, el := range arr.elems {
		if el.kind == kindString && filepath.IsAbs(el.str) {
			list = append(list, el.str)
		}
	}
	return root, list, nil
}
