package settings

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// readDoc reads a JSON file that is about to be rewritten. A missing file reads as nil data
// and exists false; any other failure is an error.
func readDoc(h hooks, path string) (data []byte, exists bool, err error) {
	data, err = h.doReadFile(path)
	if isNotExist(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading %s: %w", path, err)
	}
	return data, true, nil
}

// writeAtomic replaces path with data so that a reader sees the old file or the new one, never
// a mix, and a crash leaves the old file intact: the data goes to a temporary file in the same
// folder, is synced, and is renamed over the target. A symlinked target is followed, so the link
// survives. The old file's mode is kept; a new file gets perm, and missing folders dirPerm.
func writeAtomic(h hooks, path string, data []byte, perm, dirPerm fs.FileMode) (err error) {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	if info, err := os.Stat(path); err == nil {
		perm = info.Mode().Perm()
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, dirPerm); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	renamed := false
	defer func() {
		if !renamed {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Chmod(perm); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := h.doRename(tmp.Name(), path); err != nil {
		return fmt.Errorf("replacing %s: %w", path, err)
	}
	renamed = true
	// Sync the folder so the rename itself survives a crash; not every file system supports
	// it, and the data is already safe, so a failure here is not reported.
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// resolvePath makes p absolute and resolves its symlinks. When p does not exist, the longest
// existing ancestor is resolved and the rest joined back, so a trust check for a folder about
// to be created still sees through a symlinked parent.
func resolvePath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err == nil {
		return real, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	parent := filepath.Dir(abs)
	if parent == abs {
		return abs, nil
	}
	rp, err := resolvePath(parent)
	if err != nil {
		return "", err
	}
	return filepath.Join(rp, filepath.Base(abs)), nil
}
