//go:build unix

package checkpoint

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

	"golang.org/x/sys/unix"
)

// readNoFollow reads at most limit bytes of the regular file at path, refusing a link.
func readNoFollow(path string, limit int64) ([]byte, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	return readFD(fd, limit)
}

// readFD reads at most limit bytes of a regular file and closes it.
func readFD(fd int, limit int64) ([]byte, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return nil, errLink
	}
	f := fdFile(fd)
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit))
}

// readCurrent reads path's state below root without following a link on the way.
func readCurrent(root, path string, limit int64) (current, error) {
	dfd, err := openDir(root, filepath.Dir(path), false)
	if errors.Is(err, unix.ENOENT) {
		return current{}, nil
	}
	if err != nil {
		return current{}, err
	}
	defer unix.Close(dfd)
	name := filepath.Base(path)
	var st unix.Stat_t
	err = unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
	if errors.Is(err, unix.ENOENT) {
		return current{}, nil
	}
	if err != nil {
		return current{}, err
	}
	fp := fingerprintOfStat(&st)
	if fp.Kind != 0 {
		return current{fp: fp}, errLink
	}
	if fp.Size > limit {
		return current{fp: fp, big: true}, nil
	}
	fd, err := unix.Openat(dfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return current{}, mapLink(err)
	}
	data, err := readFD(fd, limit+1)
	return current{fp: fp, data: data}, err
}

func fingerprintOfStat(st *unix.Stat_t) fingerprint {
	fp := fingerprint{Exists: true, Mode: fs.FileMode(st.Mode & 0o777), Size: st.Size, MTime: st.Mtim.Nano(),
		CTime: st.Ctim.Nano(), Ino: st.Ino}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		fp.Kind = fs.ModeIrregular
		if st.Mode&unix.S_IFMT == unix.S_IFLNK {
			fp.Kind = fs.ModeSymlink
		}
	}
	return fp
}

// openDir opens dir, which is root or below it, walking from "/" one component at a time
// without following a symlink. With create, missing folders below root are made.
func openDir(root, dir string, create bool) (int, error) {
	if dir != root && !strings.HasPrefix(dir, root+"/") && root != "/" {
		return -1, fmt.Errorf("checkpoint: %s is outside %s", dir, root)
	}
	fd, err := unix.Open("/", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	walked := "/"
	for _, comp := range strings.Split(strings.TrimPrefix(dir, "/"), "/") {
		if comp == "" {
			continue
		}
		walked = filepath.Join(walked, comp)
		next, err := unix.Openat(fd, comp, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if errors.Is(err, unix.ENOENT) && create && len(walked) > len(root) {
			if err = unix.Mkdirat(fd, comp, 0o755); err == nil || errors.Is(err, unix.EEXIST) {
				next, err = unix.Openat(fd, comp, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			}
		}
		unix.Close(fd)
		if err != nil {
			return -1, mapLink(err)
		}
		fd = next
	}
	return fd, nil
}

// mapLink turns what O_NOFOLLOW and O_DIRECTORY answer a link (or a file where a folder
// should be) into errLink.
func mapLink(err error) error {
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.EMLINK) {
		return errLink
	}
	return err
}

// putBack makes path have state: it removes the file, or writes a new file in the real parent
// and renames it over the name (never writing into an existing inode, which may have other
// names).
func putBack(sys restoreSys, root, path string, st State, data []byte) (fingerprint, error) {
	dfd, err := openDir(root, filepath.Dir(path), st.Exists)
	if errors.Is(err, unix.ENOENT) && !st.Exists {
		return fingerprint{}, nil
	}
	if err != nil {
		return fingerprint{}, err
	}
	defer unix.Close(dfd)
	name := filepath.Base(path)
	var cur unix.Stat_t
	err = unix.Fstatat(dfd, name, &cur, unix.AT_SYMLINK_NOFOLLOW)
	exists := err == nil
	if err != nil && !errors.Is(err, unix.ENOENT) {
		return fingerprint{}, err
	}
	if exists && cur.Mode&unix.S_IFMT != unix.S_IFREG {
		return fingerprint{}, errLink
	}
	if !st.Exists {
		if !exists {
			return fingerprint{}, nil
		}
		return fingerprint{}, sys.unlink(path, func() error { return unix.Unlinkat(dfd, name, 0) })
	}
	if err := writeRename(sys, path, dfd, name, st.Mode, data); err != nil {
		return fingerprint{}, err
	}
	if err := unix.Fstatat(dfd, name, &cur, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return fingerprint{}, err
	}
	return fingerprintOfStat(&cur), nil
}

// writeRename writes data to a new file beside name (path) and renames it over name.
func writeRename(sys restoreSys, path string, dfd int, name string, mode fs.FileMode, data []byte) error {
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	tmp := ".reins-rewind-" + hex.EncodeToString(rnd[:])
	fd, err := unix.Openat(dfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return err
	}
	f := fdFile(fd)
	err = sys.write(path, f, data)
	if err == nil {
		err = unix.Fchmod(fd, uint32(mode.Perm()))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = unix.Renameat(dfd, tmp, dfd, name)
	}
	if err != nil {
		_ = unix.Unlinkat(dfd, tmp, 0)
	}
	return err
}

func fdFile(fd int) *os.File { return os.NewFile(uintptr(fd), "") }
