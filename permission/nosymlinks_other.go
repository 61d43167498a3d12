//go:build !(linux && (amd64 || arm64))

package permission

import "io/fs"

// openDirWithoutSymlinks has no one-call proof here: the caller walks the elements, no
// descriptor is ever kept, and lstatModeAt is never called.
func openDirWithoutSymlinks(string) int { return -1 }

func closeDir(int) {}

func lstatModeAt(int, string) (fs.FileMode, error) {
	panic("permission: lstatModeAt without a directory descriptor")
}
