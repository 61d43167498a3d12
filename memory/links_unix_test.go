//go:build unix

// Unix-only: a symlink on Windows needs a privilege (or developer mode), and Wine 8, which
// runs the Windows tests, makes none (CreateSymbolicLink reports success and creates nothing).

package memory

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSymlinkOutOfTheProject: a project CLAUDE.md that is a symlink to a file outside the
// project is outside it, whatever its name.
func TestSymlinkOutOfTheProject(t *testing.T) {
	tr := newTree(t)
	tr.write(t, map[string]string{"home/private.md": "private"})
	if err := os.Symlink(filepath.Join(tr.home, "private.md"), filepath.Join(tr.repo, "CLAUDE.md")); err != nil {
		t.Fatal(err)
	}
	tr.opts.Trusted = false
	files, warns := load(t, tr)
	if len(files) != 0 || len(warns) != 1 || !strings.Contains(warns[0].Message, "outside the project") {
		t.Fatalf("files %v, warnings %v", tr.rel(files), warns)
	}
	tr.opts.Trusted = true
	if files, _ := load(t, tr); len(files) != 1 || files[0].Content != "private" {
		t.Fatalf("trusted: files %v", tr.rel(files))
	}
}
