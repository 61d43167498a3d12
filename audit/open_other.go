//go:build !unix

package audit

import (
	"errors"
	"io/fs"
	"os"
)

// openFile opens one of the log's own files as flag says, only when its name holds a regular
// file (or nothing, with O_CREATE). Without O_NOFOLLOW the name is looked at before the open
// and the opened file after it.
func openFile(path string, flag int) (*os.File, error) {
	if info, err := os.Lstat(path); err == nil && !info.Mode().IsRegular() {
		return nil, &NotRegularError{Path: path, Mode: info.Mode()}
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	f, err := os.OpenFile(path, flag, 0o600)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, &NotRegularError{Path: path, Mode: info.Mode()}
	}
	return f, nil
}
