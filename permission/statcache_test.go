package permission

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestStatCache checks that a stat cache answers as os.Lstat did when first asked, for the
// decision it belongs to only: a context without one sees the file system as it is now. It
// holds for both ways of making one, and a StatCacheContext passes other values through.
func TestStatCache(t *testing.T) {
	type parentKey struct{}
	makers := []struct {
		name string
		make func(context.Context) context.Context
	}{
		{"WithStatCache", WithStatCache},
		{"StatCacheContext", func(parent context.Context) context.Context { return new(StatCacheContext).Init(parent) }},
	}
	for _, m := range makers {
		t.Run(m.name, func(t *testing.T) {
			dir := t.TempDir()
			f := filepath.Join(dir, "f")
			if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			ctx := m.make(context.WithValue(context.Background(), parentKey{}, "p"))
			if v, _ := ctx.Value(parentKey{}).(string); v != "p" {
				t.Errorf("the parent's value = %q, want p", v)
			}
			if statCacheOf(ctx) == nil {
				t.Fatal("no stat cache")
			}
			mode, err := Lstat(ctx, f)
			if err != nil || !mode.IsRegular() {
				t.Fatalf("Lstat(%s) = %v, %v", f, mode, err)
			}
			if _, err := Lstat(ctx, filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("Lstat of a missing file = %v, want not exist", err)
			}
			if err := os.Remove(f); err != nil {
				t.Fatal(err)
			}
			if _, err := Lstat(ctx, f); err != nil {
				t.Errorf("within the decision Lstat(%s) changed its answer: %v", f, err)
			}
			if _, err := Lstat(context.Background(), f); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("without a cache Lstat(%s) = %v, want not exist", f, err)
			}
			if _, err := Lstat(m.make(context.Background()), f); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("a new decision's Lstat(%s) = %v, want not exist", f, err)
			}
		})
	}
}

// TestStatCacheBeyondList checks that paths past the short list are remembered too, each
// with its own answer.
func TestStatCacheBeyondList(t *testing.T) {
	dir := t.TempDir()
	ctx := WithStatCache(context.Background())
	var names []string
	for i := range 3 * statListMax {
		n := filepath.Join(dir, fmt.Sprintf("f%d", i))
		if i%2 == 0 {
			if err := os.WriteFile(n, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		names = append(names, n)
		if _, err := Lstat(ctx, n); (err == nil) != (i%2 == 0) {
			t.Fatalf("Lstat(%s) = %v", n, err)
		}
	}
	for i, n := range names {
		if err := os.Remove(n); err != nil && i%2 == 0 {
			t.Fatal(err)
		}
	}
	for i, n := range names {
		if _, err := Lstat(ctx, n); (err == nil) != (i%2 == 0) {
			t.Errorf("second Lstat(%s) = %v, want the first answer", n, err)
		}
	}
}
