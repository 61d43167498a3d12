package audit

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/reinsdev/reins/boundedfile"
)

// NotRegularError is one of the log's files whose name holds something other than a regular
// file: a symlink, a FIFO, a device, a socket or a folder. The log never reads or writes
// through one: a FIFO would hang the open (and every command with it), a symlink could aim
// the log's writes at another file.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("audit: %s is %s, not a regular file: the audit log's files must be regular files, and a symlink is not followed", e.Path, boundedfile.DescribeMode(e.Mode))
}

// openErr wraps a failed open of one of the log's files: a *NotRegularError says all there is.
func openErr(doing string, err error) error {
	var nr *NotRegularError
	if errors.As(err, &nr) {
		return err
	}
	return fmt.Errorf("audit: %s: %w", doing, err)
}

// readSmall reads one of the log's small files whole, of at most limit bytes (one more is
// read, so that a longer file is seen as such by the caller's check).
func readSmall(path string, limit int64) ([]byte, error) {
	f, err := openFile(path, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit+1))
}
