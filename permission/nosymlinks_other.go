//go:build !(linux && (amd64 || arm64))

package permission

import "io/fs"

// dirWithoutSymlinks has no one-call proof here: the caller walks the elements.
func dirWithoutSymlinks(string) bool { return false }

// openDirWithoutSymlinks never proves anything here, so no descriptor is ever kept and
// lstatModeAt is never called.
func openDirWithoutSymlinks(string) int { return -1 }

func closeDir(int) {}

func lstatModeAt(int, string) (fs.FileMode, error) {
	panic("permission: lstatModeAt without a directory descriptor")
}
