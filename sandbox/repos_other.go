//go:build !linux

package sandbox

import "os"

// listDirs returns the names of the folders in dir other than .git and whether dir holds a
// .git entry of any type.
func listDirs(dir string, buf []byte, _ bool) (dirs []string, hasGit bool, _ []byte) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, false, buf
	}
	for _, e := range entries {
		switch {
		case e.Name() == ".git":
			hasGit = true
		case e.IsDir():
			dirs = append(dirs, e.Name())
		}
	}
	return dirs, hasGit, buf
}

func fillsReads(string) bool { return false }
