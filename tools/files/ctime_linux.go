package files

import (
	"os"
	"syscall"
	"time"
)

// changeTime is the file's inode change time (ctime), which no utime call can set back.
func changeTime(fi os.FileInfo) time.Time {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return time.Unix(st.Ctim.Unix())
	}
	return time.Time{}
}
