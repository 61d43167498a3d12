package permission

import (
	"os"
	"strings"

	"golang.org/x/sys/windows"
)

// evalLinks resolves p as Windows does when it opens it: every symlink and every junction
// (mount point) followed, 8.3 short names expanded. filepath.EvalSymlinks follows symlinks
// only: since Go 1.23 a junction is an irregular file to it, and a path through one fails
// or comes back unresolved, which would let a junction inside the project (one needs no
// privilege to make) lead a write outside it unseen. The system says where the open landed
// (GetFinalPathNameByHandle), which is the file the tool will open.
func evalLinks(p string) (string, error) {
	name, err := windows.UTF16PtrFromString(p)
	if err != nil {
		return "", &os.PathError{Op: "resolve", Path: p, Err: err}
	}
	// No access is asked for: the handle only names the file. FILE_FLAG_BACKUP_SEMANTICS
	// opens folders too.
	h, err := windows.CreateFile(name, 0, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE,
		nil, windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS, 0)
	if err != nil {
		return "", &os.PathError{Op: "resolve", Path: p, Err: err}
	}
	defer windows.CloseHandle(h)
	buf := make([]uint16, windows.MAX_PATH)
	for {
		n, err := windows.GetFinalPathNameByHandle(h, &buf[0], uint32(len(buf)), fileNameNormalized|volumeNameDOS)
		if err != nil {
			return "", &os.PathError{Op: "resolve", Path: p, Err: err}
		}
		if int(n) < len(buf) {
			return dosPath(windows.UTF16ToString(buf[:n])), nil
		}
		buf = make([]uint16, n)
	}
}

// GetFinalPathNameByHandle's flags (fileapi.h): the normalized name, with its drive letter.
const (
	fileNameNormalized = 0x0
	volumeNameDOS      = 0x0
)

// dosPath drops the \\?\ prefix the system puts before the name it returns.
func dosPath(s string) string {
	if rest, ok := strings.CutPrefix(s, `\\?\UNC\`); ok {
		return `\\` + rest
	}
	return strings.TrimPrefix(s, `\\?\`)
}
