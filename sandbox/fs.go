package sandbox

import (
	"io/fs"
	"os"
	"syscall"
)

// fileID is what tells that a file changed: its type and mode, size, times and inode.
type fileID struct {
	mode         fs.FileMode
	size         int64
	mtime, ctime int64 // ns
	ino, dev     uint64
}

func lstatID(p string) (fileID, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return fileID{}, err
	}
	id := fileID{mode: fi.Mode(), size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id.ino, id.dev = uint64(st.Ino), uint64(st.Dev)
		id.ctime = statCtime(st)
	}
	return id, nil
}
