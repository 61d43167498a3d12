//go:build unix

package commands

import (
	"path/filepath"
	"testing"

	"github.com/reinsdev/reins/boundedfile/boundedfiletest"
)

// plantFIFO makes dir/fifo.md a FIFO and returns the name the load must refuse.
func plantFIFO(t *testing.T, dir string) []string {
	t.Helper()
	if err := boundedfiletest.Mkfifo(filepath.Join(dir, "fifo.md")); err != nil {
		t.Fatal(err)
	}
	return []string{"fifo.md"}
}
