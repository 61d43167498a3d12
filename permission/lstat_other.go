//go:build !unix

package permission

import (
	"io/fs"
	"os"
)

func lstatMode(name string) (fs.FileMode, error) {
	fi, err := os.Lstat(name)
	if err != nil {
		return 0, err
	}
	return fi.Mode().Type(), nil
}
