//go:build unix

package boundedfile

import (
	"os"
	"testing"
)

// symlinksTo returns a symlink to p.
func symlinksTo(t *testing.T, p string) []string {
	t.Helper()
	link := p + ".link"
	if err := os.Symlink(p, link); err != nil {
		t.Fatal(err)
	}
	return []string{link}
}
