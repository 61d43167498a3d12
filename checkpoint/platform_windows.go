package checkpoint

// Windows has no openat and no O_NOFOLLOW: the walks below go one path component at a time
// with Lstat, refusing every link, junction or other reparse point on the way, and then act on
// the full path. Between that check and the act another process could put a link where a
// folder was (the race that openat's descriptor walk closes on Unix); docs/security.md has the
// row. A file is opened only after Lstat said it is regular, and its handle is checked again.

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// linkish reports whether fi is anything a walk must not pass through or read as a file: a
// symlink, a junction (Go reports mount points as irregular) or another reparse point.
func linkish(fi fs.FileInfo) bool {
	return fi.Mode()&(fs.ModeSymlink|fs.ModeIrregular|fs.ModeDevice|fs.ModeNamedPipe|fs.ModeSocket) != 0
}

func fingerprintOfInfo(fi fs.FileInfo) fingerprint {
	fp := fingerprint{Exists: true, Mode: fi.Mode().Perm(), Size: fi.Size(), MTime: fi.ModTime().UnixNano()}
	if !fi.Mode().IsRegular() {
		fp.Kind = fs.ModeIrregular
		if fi.Mode()&fs.ModeSymlink != 0 {
			fp.Kind = fs.ModeSymlink
		}
	}
	return fp
}

// openNoFollow opens path for reading when Lstat says it is a regular file.
func openNoFollow(path string) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errLink
	}
	return os.Open(path)
}

// readNoFollow reads at most limit bytes of the regular file at path, refusing a link.
func readNoFollow(path string, limit int64) ([]byte, error) {
	f, err := openNoFollow(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return nil, errLink
	}
	return io.ReadAll(io.LimitReader(f, limit))
}

// checkDir makes sure every component of dir, which is root or below it, is a real folder,
// from the volume's root down; with create, missing folders below root are made.
func checkDir(root, dir string, create bool) error {
	sep := string(filepath.Separator)
	if !strings.EqualFold(dir, root) && !strings.HasPrefix(strings.ToLower(dir), strings.ToLower(strings.TrimSuffix(root, sep)+sep)) {
		return fmt.Errorf("checkpoint: %s is outside %s", dir, root)
	}
	vol := filepath.VolumeName(dir)
	walked := vol + sep
	for _, comp := range strings.Split(strings.TrimPrefix(dir[len(vol):], sep), sep) {
		if comp == "" {
			continue
		}
		walked = filepath.Join(walked, comp)
		fi, err := os.Lstat(walked)
		if errors.Is(err, fs.ErrNotExist) && create && len(walked) > len(root) {
			if err = os.Mkdir(walked, 0o755); err == nil || errors.Is(err, fs.ErrExist) {
				fi, err = os.Lstat(walked)
			}
		}
		if err != nil {
			return err
		}
		if !fi.IsDir() || linkish(fi) {
			return errLink
		}
	}
	return nil
}

// readCurrent reads path's state below root without following a link on the way.
func readCurrent(root, path string, limit int64) (current, error) {
	err := checkDir(root, filepath.Dir(path), false)
	if errors.Is(err, fs.ErrNotExist) {
		return current{}, nil
	}
	if err != nil {
		return current{}, err
	}
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return current{}, nil
	}
	if err != nil {
		return current{}, err
	}
	fp := fingerprintOfInfo(fi)
	if fp.Kind != 0 {
		return current{fp: fp}, errLink
	}
	if fp.Size > limit {
		return current{fp: fp, big: true}, nil
	}
	data, err := readNoFollow(path, limit+1)
	return current{fp: fp, data: data}, err
}

// putBack makes path have state: it removes the file, or writes a new file beside it and
// renames it over the name (never writing into an existing file, which may have other names).
func putBack(sys restoreSys, root, path string, st State, data []byte) (fingerprint, error) {
	err := checkDir(root, filepath.Dir(path), st.Exists)
	if errors.Is(err, fs.ErrNotExist) && !st.Exists {
		return fingerprint{}, nil
	}
	if err != nil {
		return fingerprint{}, err
	}
	cur, err := os.Lstat(path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fingerprint{}, err
	}
	if exists && !cur.Mode().IsRegular() {
		return fingerprint{}, errLink
	}
	if !st.Exists {
		if !exists {
			return fingerprint{}, nil
		}
		return fingerprint{}, sys.unlink(path, func() error { return os.Remove(path) })
	}
	if err := writeRename(sys, path, st.Mode, data); err != nil {
		return fingerprint{}, err
	}
	if cur, err = os.Lstat(path); err != nil {
		return fingerprint{}, err
	}
	return fingerprintOfInfo(cur), nil
}

// writeRename writes data to a new file beside path and renames it over path.
func writeRename(sys restoreSys, path string, mode fs.FileMode, data []byte) error {
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	tmp := filepath.Join(filepath.Dir(path), ".reins-rewind-"+hex.EncodeToString(rnd[:]))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode.Perm()|0o200)
	if err != nil {
		return err
	}
	err = sys.write(path, f, data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, mode.Perm())
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
}

// walk calls fn for every non-folder below root (root itself when it is not a folder), with
// its fingerprint, never following a link and never entering a .git folder. A root that does
// not exist is nothing to walk.
func walk(root string, fn func(path string, fp fingerprint) error) error {
	fi, err := os.Lstat(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("checkpoint: %s: %w", root, err)
	}
	if !fi.IsDir() || linkish(fi) {
		return fn(root, fingerprintOfInfo(fi))
	}
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("checkpoint: %s: %w", p, err)
		}
		junction := d.IsDir() && d.Type()&(fs.ModeSymlink|fs.ModeIrregular) != 0
		if d.IsDir() && !junction {
			if p != root && d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		info, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("checkpoint: %s: %w", p, err)
		}
		if err := fn(p, fingerprintOfInfo(info)); err != nil || !junction {
			return err
		}
		return filepath.SkipDir
	})
}
