package sandbox

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// listDirs returns the names of the folders in dir other than .git (symlinks not followed)
// and whether dir holds a .git entry of any type. It reads the folder with getdents into buf
// (returned for reuse) and stats nothing unless the file system leaves an entry's type
// unknown: the search for repositories reads every folder it visits, and os.ReadDir's
// allocations per entry cost more than the system calls.
func listDirs(dir string, buf []byte, shortReads bool) (dirs []string, hasGit bool, _ []byte) {
	if buf == nil {
		buf = make([]byte, 32<<10)
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, false, buf // unreadable here is unreadable to the command too
	}
	defer unix.Close(fd)
	for {
		n, err := unix.Getdents(fd, buf)
		if err != nil || n <= 0 {
			return dirs, hasGit, buf
		}
		// The local file systems fill the buffer while entries remain: a read that left room
		// for more was the last, and the call that would say so is saved.
		last := shortReads && n < len(buf)-512
		for off := 0; off+direntName <= n; {
			// struct linux_dirent64: d_ino u64, d_off s64, d_reclen u16, d_type u8, d_name.
			reclen := int(binary.NativeEndian.Uint16(buf[off+16:]))
			if reclen <= direntName || off+reclen > n {
				return dirs, hasGit, buf
			}
			typ := buf[off+18]
			name := buf[off+direntName : off+reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			off += reclen
			if string(name) == "." || string(name) == ".." {
				continue
			}
			if string(name) == ".git" {
				hasGit = true
				continue
			}
			if typ == unix.DT_UNKNOWN {
				if fi, err := os.Lstat(filepath.Join(dir, string(name))); err == nil && fi.IsDir() {
					typ = unix.DT_DIR
				}
			}
			if typ == unix.DT_DIR {
				dirs = append(dirs, string(name))
			}
		}
		if last {
			return dirs, hasGit, buf
		}
	}
}

// fillsReads reports whether dir's file system is one of the local ones whose getdents fills
// the buffer while entries remain (network and FUSE file systems may return less).
func fillsReads(dir string) bool {
	var st unix.Statfs_t
	if unix.Statfs(dir, &st) != nil {
		return false
	}
	switch uint32(st.Type) {
	case unix.EXT4_SUPER_MAGIC, unix.XFS_SUPER_MAGIC, unix.BTRFS_SUPER_MAGIC, unix.TMPFS_MAGIC, unix.OVERLAYFS_SUPER_MAGIC, 0x2fc12fc1 /* zfs */ :
		return true
	}
	return false
}

// direntName is the offset of d_name in struct linux_dirent64.
const direntName = 19
