package checkpoint

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// fixture is a working directory and a folder outside it, with a store.
type fixture struct {
	t       testing.TB
	root    string // the working directory
	outside string // a folder beside it that nothing may touch
	store   *Store
}

func newFixture(t testing.TB, limits Limits) *fixture {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, root: filepath.Join(base, "work"), outside: filepath.Join(base, "outside")}
	for _, d := range []string{f.root, f.outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	f.store, err = Open(filepath.Join(base, "store"), []string{f.root}, limits)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) path(rel string) string { return filepath.Join(f.root, rel) }

func (f *fixture) write(rel, content string, mode fs.FileMode) {
	f.t.Helper()
	p := f.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		f.t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) begin(id string) {
	f.t.Helper()
	if err := f.store.Begin(id, "message "+id); err != nil {
		f.t.Fatal(err)
	}
}

// change runs fn as an agent's change of scope.
func (f *fixture) change(scope Scope, fn func()) {
	f.t.Helper()
	ctx := context.Background()
	p, err := f.store.Capture(ctx, "", scope)
	if err != nil {
		f.t.Fatal(err)
	}
	fn()
	if err := p.Done(ctx); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) rewind(id string, opts RewindOptions) Result {
	f.t.Helper()
	res, err := f.store.Rewind(context.Background(), id, opts)
	if err != nil {
		f.t.Fatal(err)
	}
	return res
}

// fileState is what a tree holds at a path.
type fileState struct {
	Content string
	Mode    fs.FileMode
}

// tree is every regular file below dir (and symlinks, as "-> target"), by relative path.
func tree(t testing.TB, dir string) map[string]fileState {
	t.Helper()
	out := map[string]fileState{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		info, err := d.Info()
		if err != nil {
			return err
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(path)
			out[rel] = fileState{Content: "-> " + target, Mode: fs.ModeSymlink}
			return nil
		}
		if !info.Mode().IsRegular() {
			out[rel] = fileState{Mode: info.Mode().Type()}
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out[rel] = fileState{Content: string(b), Mode: info.Mode().Perm()}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
