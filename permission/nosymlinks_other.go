//go:build !linux

package permission

// openDirWithoutSymlinks has no one-call proof here: the caller walks the elements, no
// descriptor is ever kept, and lstatFileAt is never called.
func openDirWithoutSymlinks(string) int { return -1 }

func closeDir(int) {}

func lstatFileAt(int, string) (fileStat, error) {
	panic("permission: lstatFileAt without a directory descriptor")
}
