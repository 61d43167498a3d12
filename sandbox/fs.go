package sandbox

import (
	"io/fs"
	"os"
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
	id.ino, id.dev, id.ctime = sysID(fi)
	return id, nil
}
