package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// sysID is a file's inode, device and change time, from its Lstat.
func sysID(fi os.FileInfo) (ino, dev uint64, ctime int64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ino, st.Dev, st.Ctim.Sec*1e9 + st.Ctim.Nsec
	}
	return 0, 0, 0
}

// fsClockNow is the time on the clock file systems stamp changes with (the coarse real-time
// clock): anything changed after this call has a ctime at or after it.
func fsClockNow() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_REALTIME_COARSE, &ts); err != nil {
		return 0
	}
	return ts.Nano()
}

// groupAlive reports whether the process group pgid has a member.
func groupAlive(pgid int) bool {
	return pgid > 0 && unix.Kill(-pgid, 0) != unix.ESRCH
}

// openParent opens p's folder as an O_PATH descriptor without following a symlink anywhere on
// the way: the check after a command acts on paths inside the write roots, where the command
// may have planted symlinks to lead reins' own writes elsewhere.
func openParent(p string) (int, string, error) {
	how := unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS}
	fd, err := unix.Openat2(unix.AT_FDCWD, filepath.Dir(p), &how)
	if err != nil {
		return -1, "", fmt.Errorf("opening the folder of %s: %w", p, err)
	}
	return fd, filepath.Base(p), nil
}

// readNoFollow reads the regular file p, following no symlink.
func readNoFollow(p string) ([]byte, error) {
	dir, base, err := openParent(p)
	if err != nil {
		return nil, err
	}
	defer unix.Close(dir)
	fd, err := unix.Openat(dir, base, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), p)
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	return io.ReadAll(io.LimitReader(f, maxSnapshotFile+1))
}

// moveNoFollow moves src (whatever it is: a file, a symlink, a folder) to dst, whose folder
// exists; across file systems it copies and then removes src.
func moveNoFollow(src, dst string) error {
	sdir, sbase, err := openParent(src)
	if err != nil {
		return err
	}
	defer unix.Close(sdir)
	ddir, err := unix.Open(filepath.Dir(dst), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(ddir)
	err = unix.Renameat(sdir, sbase, ddir, filepath.Base(dst))
	if !errors.Is(err, unix.EXDEV) {
		return err
	}
	if err := copyAt(sdir, sbase, dst); err != nil {
		return err
	}
	return removeAt(sdir, sbase)
}

// copyAt copies the entry name of the folder dir to dst, following no symlink.
func copyAt(dir int, name, dst string) error {
	var st unix.Stat_t
	if err := unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return err
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		buf := make([]byte, 4096)
		n, err := unix.Readlinkat(dir, name, buf)
		if err != nil {
			return err
		}
		return os.Symlink(string(buf[:n]), dst)
	case unix.S_IFREG:
		fd, err := unix.Openat(dir, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		in := os.NewFile(uintptr(fd), name)
		defer in.Close()
		out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, os.FileMode(st.Mode&0o777))
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	case unix.S_IFDIR:
		fd, err := unix.Openat(dir, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		d := os.NewFile(uintptr(fd), name)
		defer d.Close()
		names, err := d.Readdirnames(-1)
		if err != nil {
			return err
		}
		if err := os.Mkdir(dst, 0o700); err != nil {
			return err
		}
		for _, n := range names {
			if err := copyAt(fd, n, filepath.Join(dst, n)); err != nil {
				return err
			}
		}
		return nil
	}
	return nil // devices, fifos and sockets are not copied, only removed
}

// removeAt removes the entry name of the folder dir and everything below it.
func removeAt(dir int, name string) error {
	err := unix.Unlinkat(dir, name, 0)
	if !errors.Is(err, unix.EISDIR) && !errors.Is(err, unix.EPERM) {
		return err
	}
	fd, err := unix.Openat(dir, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	d := os.NewFile(uintptr(fd), name)
	names, err := d.Readdirnames(-1)
	if err == nil {
		for _, n := range names {
			if err = removeAt(fd, n); err != nil {
				break
			}
		}
	}
	d.Close()
	if err != nil {
		return err
	}
	return unix.Unlinkat(dir, name, unix.AT_REMOVEDIR)
}

// recreate puts e back at p, whose folder must exist; it fails if something is there.
func recreate(p string, e *entry) error {
	dir, base, err := openParent(p)
	if err != nil {
		return err
	}
	defer unix.Close(dir)
	perm := uint32(e.id.mode.Perm())
	switch {
	case e.id.mode.IsDir():
		return unix.Mkdirat(dir, base, perm)
	case e.id.mode&os.ModeSymlink != 0:
		return unix.Symlinkat(e.link, dir, base)
	}
	fd, err := unix.Openat(dir, base, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, perm)
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), p)
	if _, err := f.Write(e.data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(e.id.mode.Perm()); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ownGroup reports whether cmd was started in a process group of its own.
func ownGroup(cmd *exec.Cmd) bool { return cmd.SysProcAttr != nil && cmd.SysProcAttr.Setpgid }
