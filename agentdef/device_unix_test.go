//go:build unix

package agentdef

import (
	"os"
	"path/filepath"
	"testing"
)

// plantDevice makes dir/dev.md a symlink to /dev/zero and returns what the load must say of it.
func plantDevice(t *testing.T, dir string) []string {
	t.Helper()
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "dev.md")); err != nil {
		t.Fatal(err)
	}
	return []string{"not a regular file"}
}
