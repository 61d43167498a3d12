//go:build unix

package settings

import (
	"os"
	"testing"
)

// wantPrivate checks that the file or folder at p has mode perm (0600, 0700): readable by its
// owner alone.
func wantPrivate(t *testing.T, p string, perm os.FileMode) {
	t.Helper()
	info, err := os.Stat(p)
	if err != nil || info.Mode().Perm() != perm {
		t.Errorf("%s: %v, %v; want mode %v", p, info, err, perm)
	}
}
