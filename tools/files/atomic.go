package files

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// target is the file a write replaces: the path after symbolic links, and the attributes the
// new file keeps.
type target struct {
	path   string
	exists bool
	mode   os.FileMode
	uid    int
	gid    int
	// links is the number of hard links; a file with more than one is written in place.
	links uint64
}

// newFileMode is the mode of files the tools create.
const newFileMode = 0o644

// writeTarget finds where a write to abs lands and what the file looks like now. A file with
// several links whose last in-place write was interrupted is completed first (journal.go).
func writeTarget(abs string, opts Options) (target, error) {
	t := target{path: abs, mode: newFileMode, uid: -1, gid: -1}
	if resolved, err := filepath.EvalSymlinks(abs); err == nil {
		t.path = resolved
	} else if l, lerr := os.Lstat(abs); lerr == nil && l.Mode()&os.ModeSymlink != 0 {
		// A dangling link: write where it points.
		dest, err := os.Readlink(abs)
		if err != nil {
			return t, fmt.Errorf("reading link %s: %w", abs, err)
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(abs), dest)
		}
		t.path = filepath.Clean(dest)
	}
	fi, err := os.Stat(t.path)
	if err == nil && fi.Mode().IsRegular() && linkCount(t.path, fi) > 1 {
		if err := finishJournal(opts.journal(), t.path, fi); err != nil {
			return t, err
		}
		fi, err = os.Stat(t.path)
	}
	switch {
	case err == nil:
		t.exists = true
		t.mode = fi.Mode() & (os.ModePerm | os.ModeSetuid | os.ModeSetgid | os.ModeSticky)
		if id, ok := fileIdentity(t.path, fi); ok {
			t.uid, t.gid = id.uid, id.gid
			t.links = id.links
		}
	case !errors.Is(err, os.ErrNotExist):
		return t, err
	}
	return t, nil
}

// writeAtomic replaces t.path with data: it writes a temporary file in the same directory,
// syncs it, gives it the old file's mode and owner, and renames it over the target, so
// readers and crashes see either the old content or the new, never a mix. Missing parent
// directories are created.
//
// A file with more than one hard link is the exception: renaming would give this name a new
// file and leave the other links with the old content, so it is written in place instead
// (after the same checks), giving up atomicity to keep the links one file.
func writeAtomic(t target, data []byte, opts Options) (err error) {
	if t.exists && t.links > 1 {
		return writeInPlace(t, data, opts)
	}
	dir := filepath.Dir(t.path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	sweepTemps(dir)
	f, err := os.CreateTemp(dir, tempPattern(filepath.Base(t.path)))
	if err != nil {
		return fmt.Errorf("writing %s: %w", t.path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	half := len(data) / 2
	if _, err = f.Write(data[:half]); err != nil {
		return fmt.Errorf("writing %s: %w", tmp, err)
	}
	opts.at("mid-write")
	if _, err = f.Write(data[half:]); err != nil {
		return fmt.Errorf("writing %s: %w", tmp, err)
	}
	if err = f.Chmod(t.mode); err != nil {
		return fmt.Errorf("setting the mode of %s: %w", tmp, err)
	}
	if t.uid >= 0 {
		// Keeping the owner only works with the privilege to give files away; without it the
		// writer owns the new file, as with any editor that saves by renaming.
		_ = f.Chown(t.uid, t.gid)
		// Chown clears set-id bits; put them back.
		if t.mode&(os.ModeSetuid|os.ModeSetgid) != 0 {
			_ = f.Chmod(t.mode)
		}
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("syncing %s: %w", tmp, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("closing %s: %w", tmp, err)
	}
	opts.at("before-rename")
	if err = os.Rename(tmp, t.path); err != nil {
		return fmt.Errorf("replacing %s: %w", t.path, err)
	}
	// Make the rename itself durable.
	syncDir(dir)
	return nil
}

// writeInPlace overwrites the file t.path keeps, so every hard link sees the new content,
// through a roll-forward journal (journal.go): a writer killed half-way leaves the file to be
// completed by the next one, never a mix. The mode and owner are the file's own and do not
// change.
func writeInPlace(t target, data []byte, opts Options) error {
	fi, err := os.Stat(t.path)
	if err != nil {
		return fmt.Errorf("writing %s: %w", t.path, err)
	}
	journal, err := writeJournal(opts.journal(), t.path, fi, data)
	if err != nil {
		return err
	}
	if err := overwrite(t.path, data, opts); err != nil {
		// The file may be half-written: the journal stays, and the next write completes it.
		return err
	}
	if err := os.Remove(journal); err != nil {
		return fmt.Errorf("removing the journal %s: %w", journal, err)
	}
	return nil
}

// overwrite writes data over the file at path from the start, cuts it to its length and
// syncs it.
func overwrite(path string, data []byte, opts Options) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer f.Close()
	half := len(data) / 2
	if _, err := f.WriteAt(data[:half], 0); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	opts.at("mid-write")
	if _, err := f.WriteAt(data[half:], int64(half)); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Truncate(int64(len(data))); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("syncing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("closing %s: %w", path, err)
	}
	return nil
}

func linkCount(path string, fi os.FileInfo) uint64 {
	id, _ := fileIdentity(path, fi)
	return id.links
}
