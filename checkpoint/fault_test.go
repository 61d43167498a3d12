package checkpoint

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"syscall"
	"testing"

	"pgregory.net/rapid"
)

// faultySys refuses the writes of chosen files, as a full disk or a failing device would.
type faultySys struct {
	mu     sync.Mutex
	faults map[string]error // path → the error its write or removal gets
	fired  map[string]bool
}

func (s *faultySys) fault(path string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.faults[path]
	if err != nil {
		s.fired[path] = true
	}
	return err
}

func (s *faultySys) write(path string, f *os.File, data []byte) error {
	if err := s.fault(path); err != nil {
		// A full disk takes part of the content before it refuses the rest.
		_, _ = f.Write(data[:len(data)/2])
		return err
	}
	return osSys{}.write(path, f, data)
}

func (s *faultySys) unlink(path string, remove func() error) error {
	if err := s.fault(path); err != nil {
		return err
	}
	return osSys{}.unlink(path, remove)
}

// TestAFailedRestoreIsNeverRecordedAsDone: whatever turns changed, and whichever files of
// the restore meet a full disk, an I/O error or a swapped backup, a rewind that could not
// put every file back is an *IncompleteError naming exactly those files; the point is not
// reached (the later points and the failed files' backups stay); and a second rewind, with
// the faults gone, gives the tree as it was when the point began.
func TestAFailedRestoreIsNeverRecordedAsDone(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		f := newFixture(t, Limits{})
		sys := &faultySys{faults: map[string]error{}, fired: map[string]bool{}}
		f.store.sys = sys
		for _, n := range rapid.SliceOfDistinct(rapid.SampledFrom(names), rapid.ID).Draw(rt, "initial") {
			f.write(n, "initial "+n+"\n", 0o644)
		}
		turns := rapid.IntRange(1, 3).Draw(rt, "turns")
		var at []map[string]fileState
		for k := range turns {
			at = append(at, tree(t, f.root))
			f.begin(fmt.Sprint(k))
			for _, o := range rapid.SliceOfN(genOp(), 1, 5).Draw(rt, fmt.Sprintf("ops%d", k)) {
				f.change(Scope{All: true}, func() { f.apply(o) })
			}
		}
		k := rapid.IntRange(0, turns-1).Draw(rt, "k")
		idx := f.store.find(fmt.Sprint(k))
		targets, _ := f.store.targets(idx)

		// The faults: at each file of the restore, none, ENOSPC, EIO, or its backup swapped for
		// another content on disk.
		swapped := map[string][]byte{} // blob path → its content, to put back
		swappedBlob := map[string]bool{}
		for _, tg := range targets {
			switch rapid.SampledFrom([]string{"none", "ENOSPC", "EIO", "swap"}).Draw(rt, "fault "+tg.path) {
			case "ENOSPC":
				sys.faults[tg.path] = syscall.ENOSPC
			case "EIO":
				sys.faults[tg.path] = syscall.EIO
			case "swap":
				if !tg.state.Exists {
					continue
				}
				p := f.store.blobPath(tg.state.Blob)
				if _, ok := swapped[p]; !ok {
					b, err := os.ReadFile(p)
					if err != nil {
						rt.Fatal(err)
					}
					swapped[p] = b
					if err := os.WriteFile(p, []byte("swapped content\n"), 0o600); err != nil {
						rt.Fatal(err)
					}
				}
				swappedBlob[tg.state.Blob] = true
			}
		}

		res, err := f.store.Rewind(t.Context(), fmt.Sprint(k), RewindOptions{})
		var failed []string
		for _, s := range res.Failed {
			failed = append(failed, s.Path)
		}
		var want []string
		for _, tg := range targets {
			if sys.fired[tg.path] || tg.state.Exists && swappedBlob[tg.state.Blob] {
				want = append(want, tg.path)
			}
		}
		if !slices.Equal(failed, want) {
			rt.Fatalf("failed %v, want %v (the faults that fired and the swapped backups)", failed, want)
		}
		var inc *IncompleteError
		switch {
		case len(want) == 0 && err != nil:
			rt.Fatalf("a rewind with no failure: %v", err)
		case len(want) == 0:
			if got := tree(t, f.root); !reflect.DeepEqual(got, at[k]) {
				rt.Fatalf("after a rewind to %d:\n got %v\nwant %v", k, got, at[k])
			}
		case !errors.As(err, &inc) || !slices.Equal(pathsOf(inc.Failed), want):
			rt.Fatalf("a rewind that left %v says %v", want, err)
		default:
			for j := k + 1; j < turns; j++ {
				if !f.store.Has(fmt.Sprint(j)) {
					rt.Fatalf("point %d was dropped by a rewind that did not finish", j)
				}
			}
			changed := f.store.ChangedSince(fmt.Sprint(k))
			for _, p := range want {
				if !slices.Contains(changed, p) {
					rt.Fatalf("%s is no longer changed since %d: its backup would never be used again (%v)", p, k, changed)
				}
			}
			// The fault is gone: the second rewind finishes the job, and a third has nothing to do.
			clear(sys.faults)
			for p, b := range swapped {
				if err := os.WriteFile(p, b, 0o600); err != nil {
					rt.Fatal(err)
				}
			}
			again, err := f.store.Rewind(t.Context(), fmt.Sprint(k), RewindOptions{})
			if err != nil || len(again.Failed) > 0 {
				rt.Fatalf("the second rewind: %v %+v", err, again.Failed)
			}
			if got := tree(t, f.root); !reflect.DeepEqual(got, at[k]) {
				rt.Fatalf("after the second rewind to %d:\n got %v\nwant %v", k, got, at[k])
			}
		}
		if third := f.rewind(fmt.Sprint(k), RewindOptions{}); len(third.FilesChanged) > 0 {
			rt.Fatalf("a rewind after the point was reached put back %v", third.FilesChanged)
		}
		if left := leftovers(t, f.root); len(left) > 0 {
			rt.Fatalf("a failed write left %v", left)
		}
	})
}

func pathsOf(list []Skipped) []string {
	var out []string
	for _, s := range list {
		out = append(out, s.Path)
	}
	return out
}

// leftovers are the temporary files of a restore still in dir.
func leftovers(t testing.TB, dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && len(d.Name()) > 14 && d.Name()[:14] == ".reins-rewind-" {
			out = append(out, path)
		}
		return nil
	})
	return out
}

// TestARemovedFileCountsItsLines: putting back a file the agent created deletes its lines,
// no more (a trailing empty "line" was counted).
func TestARemovedFileCountsItsLines(t *testing.T) {
	for _, tt := range []struct {
		content  string
		ins, del int
	}{
		{"one\ntwo\n", 0, 2},
		{"one\ntwo", 0, 2},
		{"\n", 0, 1},
		{"", 0, 0},
	} {
		f := newFixture(t, Limits{})
		f.begin("m1")
		f.change(Scope{Paths: []string{f.path("new.txt")}}, func() { f.write("new.txt", tt.content, 0o644) })
		res := f.rewind("m1", RewindOptions{DryRun: true})
		if res.Insertions != tt.ins || res.Deletions != tt.del {
			t.Errorf("removing %q: +%d −%d, want +%d −%d", tt.content, res.Insertions, res.Deletions, tt.ins, tt.del)
		}
	}
}
