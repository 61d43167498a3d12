//go:build unix

// The one-call proof that a path has no symlink (plainPath, plainDir) is Unix's: on Windows
// every path check resolves the path (evalLinks), which TestNoPlainPathOnWindows holds.

package permission

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"pgregory.net/rapid"
)

// refPlainPath is plainPath as it was before the one-call proof: an os.Lstat of every
// element from the root, nothing remembered.
func refPlainPath(p string) (ok, dir bool) {
	for i := 1; i <= len(p); i++ {
		if i < len(p) && p[i] != '/' {
			continue
		}
		fi, err := os.Lstat(p[:i])
		if i == len(p) && errors.Is(err, fs.ErrNotExist) {
			return true, false
		}
		if err != nil || fi.Mode()&fs.ModeSymlink != 0 {
			return false, false
		}
		if i == len(p) {
			return true, fi.IsDir()
		}
		if !fi.IsDir() {
			return false, false
		}
	}
	return false, false
}

// TestPlainDirFastPathAgreesWithWalk builds random trees of directories, files and symlinks
// (relative, absolute, dangling, looping, to files and to directories) and checks, for random
// paths through them, that the one-call proof (openat2 with RESOLVE_NO_SYMLINKS) never calls
// plain what an Lstat of each element does not, that it proves every plain directory where
// the kernel has openat2, and that plainPath over one decision's cache answers each path of
// a sequence as the element-by-element walk without a cache does.
func TestPlainDirFastPathAgreesWithWalk(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	kernelHasIt := dirWithoutSymlinks(base)
	if !kernelHasIt {
		t.Logf("openat2 is not available here: only the walk is checked")
	}
	names := []string{"a", "b", "c", "d"}
	n, keptLookups := 0, 0
	rapid.Check(t, func(t *rapid.T) {
		n++
		root := filepath.Join(base, "t"+strconv.Itoa(n))
		if err := os.Mkdir(root, 0o755); err != nil {
			t.Fatal(err)
		}
		// Two levels: root/x and root/x/y for x, y in names.
		var all []string
		for _, x := range names {
			all = append(all, x)
			for _, y := range names {
				all = append(all, x+"/"+y)
			}
		}
		for _, rel := range all {
			full := filepath.Join(root, rel)
			if fi, err := os.Lstat(filepath.Dir(full)); err != nil || !fi.IsDir() {
				continue // its parent is not a directory
			}
			switch rapid.IntRange(0, 5).Draw(t, "kind "+rel) {
			case 0: // nothing
			case 1, 2:
				if err := os.Mkdir(full, 0o755); err != nil {
					t.Fatal(err)
				}
			case 3:
				if err := os.WriteFile(full, nil, 0o644); err != nil {
					t.Fatal(err)
				}
			case 4: // a link to another element, relative or absolute, maybe dangling or a loop
				target := rapid.SampledFrom(all).Draw(t, "target "+rel)
				dest := filepath.Join(root, target)
				if rapid.Bool().Draw(t, "relative "+rel) {
					if r, err := filepath.Rel(filepath.Dir(full), dest); err == nil {
						dest = r
					}
				}
				if err := os.Symlink(dest, full); err != nil {
					t.Fatal(err)
				}
			case 5:
				if err := os.Symlink(full, full); err != nil { // a loop
					t.Fatal(err)
				}
			}
		}
		ctx := WithStatCache(context.Background())
		// kept looks up names in the first directory it proves plain through the descriptor
		// it keeps open: every answer must be os.Lstat's.
		var kept StatCacheContext
		kctx := kept.Init(context.Background())
		defer kept.Close()
		for i := range rapid.IntRange(1, 6).Draw(t, "paths") {
			parts := rapid.SliceOfN(rapid.SampledFrom(append(names, "missing")), 0, 4).Draw(t, "path "+strconv.Itoa(i))
			p := filepath.Join(append([]string{root}, parts...)...)
			walkOK, walkDir := refPlainPath(p)
			if dirWithoutSymlinks(p) {
				if !walkOK || !walkDir {
					t.Fatalf("openat2 proved %s a plain directory; the walk says ok %v, dir %v", p, walkOK, walkDir)
				}
			} else if kernelHasIt && walkOK && walkDir {
				t.Fatalf("openat2 did not prove the plain directory %s", p)
			}
			ok, dir := plainPath(ctx, p)
			if ok != walkOK || dir != walkDir {
				t.Fatalf("plainPath(%s) = %v, %v; the walk says %v, %v", p, ok, dir, walkOK, walkDir)
			}
			if ok, dir := plainPath(kctx, p); ok != walkOK || dir != walkDir {
				t.Fatalf("plainPath(%s) keeping the directory = %v, %v; the walk says %v, %v", p, ok, dir, walkOK, walkDir)
			}
			// p and the names beside it and below it, through the kept directory where they
			// are directly in it.
			for _, q := range []string{p, filepath.Join(filepath.Dir(p), "a"), filepath.Join(p, "b"), filepath.Join(p, "missing")} {
				mode, err := Lstat(kctx, q)
				fi, werr := os.Lstat(q)
				if (err == nil) != (werr == nil) || (err == nil && mode != fi.Mode().Type()) ||
					errors.Is(err, fs.ErrNotExist) != errors.Is(werr, fs.ErrNotExist) {
					t.Fatalf("Lstat(%s) keeping the directory = %v, %v; os.Lstat says %v", q, mode, err, werr)
				}
			}
		}
		keptLookups += kept.sc.atLookups
	})
	if kernelHasIt && keptLookups == 0 {
		t.Error("no name was looked up through a kept directory: that way was never compared")
	}
}

// TestMarkPlainKeepsFirstAnswer checks that a proof made after the decision saw a directory
// otherwise (the file system changed in between) does not overwrite what was seen: every
// caller of one decision sees one answer.
func TestMarkPlainKeepsFirstAnswer(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	d := filepath.Join(root, "d")
	ctx := WithStatCache(context.Background())
	if _, err := Lstat(ctx, d); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Lstat(%s) = %v, want not exist", d, err)
	}
	if err := os.Mkdir(d, 0o755); err != nil {
		t.Fatal(err)
	}
	if ok, _ := plainPath(ctx, filepath.Join(d, "f")); ok {
		t.Errorf("plainPath took a path under a directory this decision saw missing")
	}
	if _, err := Lstat(ctx, d); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Lstat(%s) changed its answer within the decision: %v", d, err)
	}
	// A new decision sees the directory.
	if ok, dir := plainPath(WithStatCache(context.Background()), d); !ok || !dir {
		t.Errorf("plainPath(%s) in a new decision = %v, %v", d, ok, dir)
	}
}
