//go:build linux

package permission

import (
	"encoding/binary"
	"io/fs"

	"golang.org/x/sys/unix"
)

// readDirInodes opens the directory dir without following a symlink, asks enter whether to
// read it (given the directory's own device and inode), and calls fn with each entry's name,
// inode number and its type bits (fs.ModeDir, fs.ModeSymlink, ...), as getdents64 reports them, until fn returns
// false: no stat per entry, so a search for a file's other names costs a few reads per
// directory. An entry of unknown type is looked at with Lstat.
func readDirInodes(dir string, enter func(dir fileStat) bool, fn func(name string, ino uint64, typ fs.FileMode) bool) error {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	if !enter(fileStat{mode: modeType(st.Mode), dev: uint64(st.Dev), ino: st.Ino}) {
		return nil
	}
	var buf [8192]byte
	for {
		n, err := unix.ReadDirent(fd, buf[:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if n <= 0 || !eachDirent(dir, buf[:n], fn) {
			return nil
		}
	}
}

// eachDirent walks the linux_dirent64 records in b: inode (8 bytes), offset (8), record
// length (2), type (1), then the NUL-terminated name. It returns false when fn stopped it.
func eachDirent(dir string, b []byte, fn func(name string, ino uint64, typ fs.FileMode) bool) bool {
	const nameOff = 19
	for len(b) >= nameOff {
		reclen := int(binary.NativeEndian.Uint16(b[16:18]))
		if reclen < nameOff || reclen > len(b) {
			return true
		}
		rec := b[:reclen]
		b = b[reclen:]
		name := rec[nameOff:]
		for i, c := range name {
			if c == 0 {
				name = name[:i]
				break
			}
		}
		if s := string(name); s != "." && s != ".." {
			var typ fs.FileMode
			switch rec[18] {
			case unix.DT_DIR:
				typ = fs.ModeDir
			case unix.DT_LNK:
				typ = fs.ModeSymlink
			case unix.DT_REG:
			case unix.DT_UNKNOWN:
				st, err := lstatFile(dir + "/" + s)
				if err != nil {
					continue
				}
				typ = st.mode
			default:
				typ = fs.ModeIrregular
			}
			if !fn(s, binary.NativeEndian.Uint64(rec[0:8]), typ) {
				return false
			}
		}
	}
	return true
}
