//go:build unix

// See nosymlinks_unix_test.go: the plain-path proof is Unix's.

package permission

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestPlainPathAgreesWithWalk checks the shortcut of pathForms: whenever plainPath takes a
// path, the full walk finds exactly that one form, directory flag included; and a path with a
// symlink anywhere in it is never taken.
func TestPlainPathAgreesWithWalk(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(root, "d", "e"), 0o755))
	must(os.WriteFile(filepath.Join(root, "d", "f"), nil, 0o644))
	must(os.WriteFile(filepath.Join(root, "g"), nil, 0o644))
	must(os.Symlink(filepath.Join(root, "d"), filepath.Join(root, "ld")))
	must(os.Symlink("f", filepath.Join(root, "d", "lf")))
	must(os.Symlink("missing", filepath.Join(root, "d", "dangling")))
	must(os.Symlink("loop", filepath.Join(root, "loop")))
	elems := []string{"d", "e", "f", "g", "ld", "lf", "dangling", "loop", "missing"}
	rapid.Check(t, func(t *rapid.T) {
		parts := rapid.SliceOfN(rapid.SampledFrom(elems), 0, 4).Draw(t, "path")
		p := filepath.Join(append([]string{root}, parts...)...)
		ok, dir := plainPath(context.Background(), p)
		walked := walkForms(p)
		hasLink := false
		for i := range parts {
			fi, err := os.Lstat(filepath.Join(append([]string{root}, parts[:i+1]...)...))
			hasLink = hasLink || err == nil && fi.Mode()&os.ModeSymlink != 0
		}
		if ok && hasLink {
			t.Fatalf("plainPath(context.Background(), %s) took a path through a symlink", p)
		}
		if !ok {
			return
		}
		want := []pathForm{{path: p, lower: strings.ToLower(p), dir: dir}}
		if !slices.Equal(walked, want) {
			t.Fatalf("plainPath(context.Background(), %s) = dir %v, walk found %+v", p, dir, walked)
		}
	})
	if ok, _ := plainPath(context.Background(), filepath.Join(root, "d", "e")); !ok {
		t.Error("plainPath refused a plain directory")
	}
	if ok, dir := plainPath(context.Background(), filepath.Join(root, "d", "new")); !ok || dir {
		t.Errorf("plainPath of a file to be created = %v, %v; want true, false", ok, dir)
	}
	if ok, _ := plainPath(context.Background(), filepath.Join(root, "d", "new", "deeper")); ok {
		t.Error("plainPath took a path under a missing directory")
	}
	if ok, dir := plainPath(context.Background(), "/"); !ok || !dir {
		t.Errorf("plainPath(context.Background(), /) = %v, %v", ok, dir)
	}
}
