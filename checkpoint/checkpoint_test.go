package checkpoint

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestRewindPutsBackEditsAndDeletes(t *testing.T) {
	tests := []struct {
		name   string
		setup  map[string]string
		scope  func(f *fixture) Scope
		change func(f *fixture)
	}{
		{
			name:   "an edit, scoped to the file",
			setup:  map[string]string{"a.go": "package a\n\nfunc A() {}\n"},
			scope:  func(f *fixture) Scope { return Scope{Paths: []string{f.path("a.go")}} },
			change: func(f *fixture) { f.write("a.go", "package a\n\nfunc B() {}\nfunc C() {}\n", 0o644) },
		},
		{
			name:   "rm -rf src with an ignored .env, scoped to src",
			setup:  map[string]string{"src/main.go": "package main\n", "src/.env": "TOKEN=secret\n", "src/deep/x.txt": "x"},
			scope:  func(f *fixture) Scope { return Scope{Paths: []string{f.path("src")}} },
			change: func(f *fixture) { os.RemoveAll(f.path("src")) },
		},
		{
			name:   "a build script, the whole tree",
			setup:  map[string]string{"gen/out.txt": "old\n", "keep.txt": "k"},
			scope:  func(f *fixture) Scope { return Scope{All: true} },
			change: func(f *fixture) { f.write("gen/out.txt", "new\n", 0o600); f.write("gen/new.txt", "n", 0o644) },
		},
		{
			name:   "a file written where there was none",
			setup:  map[string]string{},
			scope:  func(f *fixture) Scope { return Scope{Paths: []string{f.path("new/file.txt")}} },
			change: func(f *fixture) { f.write("new/file.txt", "hello", 0o644) },
		},
		{
			name:   "a mode change",
			setup:  map[string]string{"run.sh": "#!/bin/sh\n"},
			scope:  func(f *fixture) Scope { return Scope{All: true} },
			change: func(f *fixture) { os.Chmod(f.path("run.sh"), 0o755) },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, Limits{})
			for p, c := range tt.setup {
				f.write(p, c, 0o644)
			}
			want := tree(t, f.root)
			f.begin("m1")
			f.change(tt.scope(f), func() { tt.change(f) })
			if reflect.DeepEqual(tree(t, f.root), want) {
				t.Fatal("the change changed nothing")
			}
			dry := f.rewind("m1", RewindOptions{DryRun: true})
			if len(dry.FilesChanged) == 0 {
				t.Fatalf("dry run lists nothing: %+v", dry)
			}
			res := f.rewind("m1", RewindOptions{})
			if got := tree(t, f.root); !reflect.DeepEqual(got, want) {
				t.Errorf("after rewind:\n got %v\nwant %v", got, want)
			}
			if !slices.Equal(res.FilesChanged, dry.FilesChanged) || res.Insertions != dry.Insertions || res.Deletions != dry.Deletions {
				t.Errorf("real %+v differs from dry %+v", res, dry)
			}
		})
	}
}

func TestRewindCountsLines(t *testing.T) {
	f := newFixture(t, Limits{})
	f.write("a.txt", "one\ntwo\nthree\n", 0o644)
	f.begin("m1")
	f.change(Scope{Paths: []string{f.path("a.txt")}}, func() { f.write("a.txt", "one\n2\nthree\nfour\n", 0o644) })
	res := f.rewind("m1", RewindOptions{DryRun: true})
	// Putting back removes "2" and "four" and adds "two".
	if res.Insertions != 1 || res.Deletions != 2 {
		t.Errorf("insertions %d deletions %d, want 1 and 2", res.Insertions, res.Deletions)
	}
}

func TestChangesAfterAPointBelongToTheirOwnPoint(t *testing.T) {
	f := newFixture(t, Limits{})
	f.write("a.txt", "v1", 0o644)
	f.begin("m1")
	f.change(Scope{All: true}, func() { f.write("a.txt", "v2", 0o644) })
	at2 := tree(t, f.root)
	f.begin("m2")
	f.change(Scope{All: true}, func() { f.write("a.txt", "v3", 0o644); f.write("b.txt", "b", 0o644) })
	f.rewind("m2", RewindOptions{})
	if got := tree(t, f.root); !reflect.DeepEqual(got, at2) {
		t.Errorf("rewind to m2: %v, want %v", got, at2)
	}
	f.rewind("m1", RewindOptions{})
	if got := tree(t, f.root); got["a.txt"].Content != "v1" || len(got) != 1 {
		t.Errorf("rewind to m1: %v", got)
	}
	if _, err := f.store.Rewind(context.Background(), "m2", RewindOptions{}); !errors.Is(err, ErrNoPoint) {
		t.Errorf("m2 after rewinding to m1: %v, want ErrNoPoint", err)
	}
}

func TestAPendingChangeBelongsToTheTurnThatStartedIt(t *testing.T) {
	f := newFixture(t, Limits{})
	f.write("a.txt", "v1", 0o644)
	f.begin("m1")
	ctx := context.Background()
	bg, err := f.store.Capture(ctx, "", Scope{All: true}) // a background command, never done
	if err != nil {
		t.Fatal(err)
	}
	f.begin("m2")
	f.write("a.txt", "v2 by the background command", 0o644)
	res := f.rewind("m2", RewindOptions{DryRun: true})
	if len(res.FilesChanged) != 0 {
		t.Errorf("the background change was given to m2: %+v", res)
	}
	f.rewind("m1", RewindOptions{})
	if got := tree(t, f.root)["a.txt"].Content; got != "v1" {
		t.Errorf("a.txt = %q, want v1", got)
	}
	if err := bg.Done(ctx); err != nil {
		t.Errorf("Done after the rewind: %v", err)
	}
}

func TestAFileThePersonChangedIsReportedNotOverwritten(t *testing.T) {
	f := newFixture(t, Limits{})
	f.write("a.txt", "original", 0o644)
	f.begin("m1")
	f.change(Scope{Paths: []string{f.path("a.txt")}}, func() { f.write("a.txt", "by the agent", 0o644) })
	f.write("a.txt", "by the person, later", 0o644)
	dry := f.rewind("m1", RewindOptions{DryRun: true})
	if !slices.Equal(dry.Conflicts, []string{f.path("a.txt")}) {
		t.Errorf("dry conflicts %v", dry.Conflicts)
	}
	res := f.rewind("m1", RewindOptions{})
	if !slices.Equal(res.Conflicts, []string{f.path("a.txt")}) || len(res.FilesChanged) != 0 {
		t.Errorf("real rewind %+v", res)
	}
	if got := tree(t, f.root)["a.txt"].Content; got != "by the person, later" {
		t.Errorf("the person's change was overwritten: %q", got)
	}
}

func TestOverwritePutsBackAConflict(t *testing.T) {
	f := newFixture(t, Limits{})
	f.write("a.txt", "original", 0o644)
	f.begin("m1")
	f.change(Scope{Paths: []string{f.path("a.txt")}}, func() { f.write("a.txt", "by the agent", 0o644) })
	f.write("a.txt", "by the person", 0o644)
	f.rewind("m1", RewindOptions{Overwrite: true})
	if got := tree(t, f.root)["a.txt"].Content; got != "original" {
		t.Errorf("a.txt = %q", got)
	}
}

func TestWhatWasNotCapturedIsRecorded(t *testing.T) {
	f := newFixture(t, Limits{MaxFileBytes: 10})
	f.write("big.bin", "0123456789abcdef", 0o644)
	if err := os.Symlink("big.bin", f.path("link")); err != nil {
		t.Fatal(err)
	}
	outsideFile := filepath.Join(f.outside, "o.txt")
	f.begin("m1")
	f.change(Scope{Paths: []string{f.path("big.bin"), f.path("link"), outsideFile}}, func() {
		f.write("big.bin", "changed", 0o644)
		os.Remove(f.path("link"))
		os.WriteFile(outsideFile, []byte("o"), 0o644)
	})
	res := f.rewind("m1", RewindOptions{DryRun: true})
	want := []Skipped{{f.path("big.bin"), ReasonTooLarge}, {f.path("link"), ReasonNotRegular}, {outsideFile, ReasonOutside}}
	slices.SortFunc(res.NotCaptured, func(a, b Skipped) int { return compare(a.Path, b.Path) })
	slices.SortFunc(want, func(a, b Skipped) int { return compare(a.Path, b.Path) })
	if !reflect.DeepEqual(res.NotCaptured, want) {
		t.Errorf("not captured %v, want %v", res.NotCaptured, want)
	}
}

func compare(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestTheStoreStopsAtItsTotal(t *testing.T) {
	f := newFixture(t, Limits{MaxTotalBytes: 12})
	f.write("a.txt", "12345678", 0o644)
	f.write("b.txt", "abcdefgh", 0o644)
	f.begin("m1")
	f.change(Scope{All: true}, func() { os.Remove(f.path("a.txt")); os.Remove(f.path("b.txt")) })
	res := f.rewind("m1", RewindOptions{})
	if len(res.FilesChanged) != 1 || len(res.NotCaptured) != 1 || res.NotCaptured[0].Reason != ReasonStoreFull {
		t.Errorf("%+v", res)
	}
}

func TestSameContentIsStoredOnce(t *testing.T) {
	f := newFixture(t, Limits{})
	for _, p := range []string{"a", "b", "c/d"} {
		f.write(p, "same content", 0o644)
	}
	f.begin("m1")
	f.change(Scope{All: true}, func() { os.RemoveAll(f.root); os.Mkdir(f.root, 0o755) })
	n := 0
	filepath.WalkDir(filepath.Join(f.store.dir, "blobs"), func(_ string, d os.DirEntry, _ error) error {
		if !d.IsDir() {
			n++
		}
		return nil
	})
	if n != 1 {
		t.Errorf("%d blobs, want 1", n)
	}
}

func TestAReopenedStoreRewinds(t *testing.T) {
	f := newFixture(t, Limits{})
	f.write("a.txt", "v1", 0o644)
	f.begin("m1")
	f.change(Scope{All: true}, func() { f.write("a.txt", "v2", 0o644) })
	again, err := Reopen(f.store.dir, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := again.Rewind(context.Background(), "m1", RewindOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := tree(t, f.root)["a.txt"].Content; got != "v1" {
		t.Errorf("a.txt = %q", got)
	}
}

// plantCase is something put where a checkpoint restores a file.
type plantCase struct {
	name  string
	plant func(f *fixture)
	// restored: the file is put back despite the plant (a hard link is replaced).
	restored bool
}

func TestRestoreNeverFollowsALink(t *testing.T) {
	secret := func(f *fixture) string { return filepath.Join(f.outside, "secret.txt") }
	tests := []plantCase{
		{"a symlink at the file", func(f *fixture) { os.Symlink(secret(f), f.path("src/a.txt")) }, false},
		{"the parent folder a symlink", func(f *fixture) { os.RemoveAll(f.path("src")); os.Symlink(f.outside, f.path("src")) }, false},
		{"a hard link to an outside file", func(f *fixture) { os.Link(secret(f), f.path("src/a.txt")) }, true},
	}
	tests = append(tests, fifoPlants()...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, Limits{})
			f.write("src/a.txt", "mine\n", 0o644)
			os.WriteFile(secret(f), []byte("secret\n"), 0o644)
			f.begin("m1")
			f.change(Scope{Paths: []string{f.path("src")}}, func() { os.RemoveAll(f.path("src")); os.Mkdir(f.path("src"), 0o755) })
			tt.plant(f)
			outsideBefore := tree(t, f.outside)
			res := f.rewind("m1", RewindOptions{Overwrite: true})
			if got := tree(t, f.outside); !reflect.DeepEqual(got, outsideBefore) {
				t.Errorf("outside changed: %v, was %v", got, outsideBefore)
			}
			if tt.restored {
				if got := tree(t, f.root)["src/a.txt"]; got.Content != "mine\n" || res.SkippedLinks != 0 {
					t.Errorf("src/a.txt = %+v, result %+v", got, res)
				}
				return
			}
			if res.SkippedLinks != 1 {
				t.Errorf("SkippedLinks %d, want 1 (%+v)", res.SkippedLinks, res)
			}
		})
	}
}

func TestAScanTooLargeFailsAndIsRecorded(t *testing.T) {
	f := newFixture(t, Limits{MaxScanFiles: 3})
	for _, p := range []string{"a", "b", "c", "d"} {
		f.write(p, p, 0o644)
	}
	f.begin("m1")
	if _, err := f.store.Capture(context.Background(), "", Scope{All: true}); !errors.Is(err, ErrTooManyFiles) {
		t.Fatalf("Capture: %v, want ErrTooManyFiles", err)
	}
	f.store.NoteFailure("m1", ErrTooManyFiles)
	res := f.rewind("m1", RewindOptions{DryRun: true})
	if len(res.NotCaptured) != 1 || !strings.Contains(res.NotCaptured[0].Reason, "too many files") {
		t.Errorf("not captured %+v", res.NotCaptured)
	}
}
