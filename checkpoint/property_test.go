package checkpoint

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"pgregory.net/rapid"
)

// names are the files the operations work on; none is a folder of another.
var names = []string{"a", "b", "d/c", "d/e/f", ".env"}

// op is one change an agent makes, with the paths it touches.
type op struct {
	kind    string
	from    string
	to      string
	content string
	mode    fs.FileMode
}

func (o op) String() string {
	return fmt.Sprintf("%s %s %s %q %o", o.kind, o.from, o.to, o.content, o.mode)
}

func genOp() *rapid.Generator[op] {
	return rapid.Custom(func(t *rapid.T) op {
		return op{
			kind:    rapid.SampledFrom([]string{"write", "delete", "rename", "chmod"}).Draw(t, "kind"),
			from:    rapid.SampledFrom(names).Draw(t, "from"),
			to:      rapid.SampledFrom(names).Draw(t, "to"),
			content: rapid.SampledFrom([]string{"", "x", "x\ny\n", "other"}).Draw(t, "content"),
			mode:    rapid.SampledFrom([]fs.FileMode{0o600, 0o644, 0o755}).Draw(t, "mode"),
		}
	})
}

// apply makes the change; an operation on a file that is not there does nothing.
func (f *fixture) apply(o op) {
	from, to := f.path(o.from), f.path(o.to)
	switch o.kind {
	case "write":
		os.MkdirAll(filepath.Dir(from), 0o755)
		os.WriteFile(from, []byte(o.content), o.mode)
	case "delete":
		os.Remove(from)
	case "rename":
		os.MkdirAll(filepath.Dir(to), 0o755)
		os.Rename(from, to)
	case "chmod":
		os.Chmod(from, o.mode)
	}
}

// TestRewindRestoresTheTreeOfAnyPoint: for any sequence of writes, deletes, renames and mode
// changes in turns, each captured with its exact paths or the whole tree, rewinding to turn k
// gives the tree as it was when k began, and a folder outside the working directory is never
// touched; a second rewind further back gives that turn's tree.
func TestRewindRestoresTheTreeOfAnyPoint(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		f := newFixture(t, Limits{})
		os.WriteFile(filepath.Join(f.outside, "o"), []byte("outside"), 0o644)
		for _, n := range rapid.SliceOfDistinct(rapid.SampledFrom(names), rapid.ID).Draw(rt, "initial") {
			f.write(n, "initial "+n, 0o644)
		}
		outside := tree(t, f.outside)
		turns := rapid.IntRange(1, 4).Draw(rt, "turns")
		var at []map[string]fileState
		for k := range turns {
			at = append(at, tree(t, f.root))
			f.begin(fmt.Sprint(k))
			for _, o := range rapid.SliceOfN(genOp(), 0, 5).Draw(rt, fmt.Sprintf("ops%d", k)) {
				scope := Scope{All: true}
				if rapid.Bool().Draw(rt, "exact") {
					scope = Scope{Paths: []string{f.path(o.from), f.path(o.to)}}
				}
				f.change(scope, func() { f.apply(o) })
			}
		}
		k := rapid.IntRange(0, turns-1).Draw(rt, "k")
		f.rewind(fmt.Sprint(k), RewindOptions{})
		if got := tree(t, f.root); !reflect.DeepEqual(got, at[k]) {
			rt.Fatalf("after rewind to %d:\n got %v\nwant %v", k, got, at[k])
		}
		if k > 0 {
			j := rapid.IntRange(0, k-1).Draw(rt, "j")
			f.rewind(fmt.Sprint(j), RewindOptions{})
			if got := tree(t, f.root); !reflect.DeepEqual(got, at[j]) {
				rt.Fatalf("after a second rewind to %d:\n got %v\nwant %v", j, got, at[j])
			}
		}
		if got := tree(t, f.outside); !reflect.DeepEqual(got, outside) {
			rt.Fatalf("outside changed: %v", got)
		}
	})
}
