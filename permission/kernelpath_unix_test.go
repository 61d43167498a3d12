//go:build unix

// Unix-only, as the other symlink tests (symlinks_unix_test.go says why).

package permission

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// linkTree lays out, below the fixture's project: a/b/lnk -> ../../c (a relative link to a
// folder two levels up from where it sits), c/dang -> ../../outside/new (a dangling relative
// link whose target, read from c, is outside the project), and c/up -> .. (a link to c's
// parent).
func linkTree(t *testing.T, f fsFixture) {
	t.Helper()
	for _, d := range []string{filepath.Join(f.proj, "a", "b"), filepath.Join(f.proj, "c")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"a/b/lnk": "../../c", "c/dang": "../../outside/new"} {
		if err := os.Symlink(target, filepath.Join(f.proj, link)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestResolveAsKernel: a relative target is read from its link's directory, and ".." after a
// symlink is the parent of the target (issue 39).
func TestResolveAsKernel(t *testing.T) {
	f := newFixture(t)
	addSymlinks(t, f)
	linkTree(t, f)
	root := filepath.Dir(f.proj)
	for _, tc := range []struct{ dir, p, want string }{
		{f.proj, "link-out/../o.txt", filepath.Join(f.outside, "o.txt")},
		{f.proj, "a/b/lnk/dang", filepath.Join(f.outside, "new")},
		{f.proj, "a/b/lnk/../.env", filepath.Join(f.proj, ".env")},
		{f.proj, "a/b/lnk", filepath.Join(f.proj, "c")},
		{f.proj, "src/../a.txt", filepath.Join(f.proj, "a.txt")},
		{f.proj, "missing/../../x", filepath.Join(root, "x")},
		{"/", f.proj + "/a/b/lnk/dang", filepath.Join(f.outside, "new")},
	} {
		if got := ResolveAsKernel(tc.dir, tc.p); got != tc.want {
			t.Errorf("ResolveAsKernel(%s, %s) = %s, want %s", tc.dir, tc.p, got, tc.want)
		}
	}
}

// TestWriteThroughRelativeLinkUnderSymlinkedFolder: a dangling relative link reached through
// a symlinked folder creates its target where the kernel reads it from (outside), not where
// joining it to the link's path as written would put it (a/outside/new, inside): acceptEdits
// must not allow the write. It failed before issue 39 (every form was inside the project).
func TestWriteThroughRelativeLinkUnderSymlinkedFolder(t *testing.T) {
	f := newFixture(t)
	linkTree(t, f)
	pc := mustNew(t, Config{Mode: ModeAcceptEdits, Cwd: f.proj, Home: f.home})
	p := filepath.Join(f.proj, "a", "b", "lnk", "dang")
	d, err := (&Engine{}).Decide(context.Background(), pc, writeChecker{}, p)
	if err != nil {
		t.Fatal(err)
	}
	if d.Behavior == Allow {
		t.Fatalf("write through %s allowed (%s); the kernel creates %s", p, reasonText(d), filepath.Join(f.outside, "new"))
	}
}
