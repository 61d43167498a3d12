package bash

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestOutputDirRemovedAtClose: the output folder a Shell created under the temporary folder
// is gone once the session ends.
func TestOutputDirRemovedAtClose(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	// newFixture gives every Shell a test folder; this test wants the default one.
	f := newFixture(t, Options{})
	f.shell.opts.OutputDir = ""
	f.run("echo hi")
	dir := f.shell.outDir
	if !strings.HasPrefix(dir, os.Getenv("TMPDIR")) {
		t.Fatalf("output folder %s is not under TMPDIR", dir)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatal(err)
	}
	f.shell.Close()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("output folder %s still there after Close: %v", dir, err)
	}
}

// TestOutputDirsOfDeadShellsSwept: a new Shell removes the folders of Shells whose process
// died (their owner lock is free, or they have none and are a day old) and keeps the folders
// of living ones.
func TestOutputDirsOfDeadShellsSwept(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	base := filepath.Join(tmp, "reins-"+strconv.Itoa(os.Getuid()))
	mk := func(name string, lock bool) string {
		d := filepath.Join(base, name)
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(d, "x.output"), []byte("old"), 0o600)
		if lock {
			os.WriteFile(filepath.Join(d, outputLockName), nil, 0o600)
		}
		return d
	}
	dead := mk("bash-dead", true)
	live := mk("bash-live", true)
	oldNoLock := mk("bash-old", false)
	newNoLock := mk("bash-new", false)
	other := mk("not-ours", false)
	past := time.Now().Add(-48 * time.Hour)
	os.Chtimes(oldNoLock, past, past)
	held, err := lockOutputDir(live) // a living Shell's lock
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()

	f := newFixture(t, Options{})
	f.shell.opts.OutputDir = ""
	f.run("true")
	for _, d := range []string{dead, oldNoLock} {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("%s was not swept", d)
		}
	}
	for _, d := range []string{live, newNoLock, other} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was swept: %v", d, err)
		}
	}
}

// TestOutputFileCapHolds: a command that writes without end is stopped, and its output file
// on disk is no larger than the cap, in the foreground and in the background.
func TestOutputFileCapHolds(t *testing.T) {
	const limit = 1 << 20
	out := t.TempDir()
	f := newFixture(t, Options{OutputDir: out, MaxOutputFileBytes: limit})
	res := f.run("cat /dev/zero")
	if !strings.Contains(res.TextOf(), "exceeded") {
		t.Errorf("result: %s", res.TextOf())
	}
	bg := f.bash(map[string]any{"command": "cat /dev/zero", "run_in_background": true})
	id := bg.Output.(Output).BackgroundTaskID
	deadline := time.Now().Add(60 * time.Second)
	for {
		tk := f.shell.task(id)
		if st, _ := tk.state(); st != StatusRunning {
			<-tk.done
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the background task was never stopped")
		}
		time.Sleep(20 * time.Millisecond)
	}
	f.shell.Close() // waits for the cap to be applied
	files, _ := filepath.Glob(filepath.Join(out, "*.output"))
	if len(files) != 2 {
		t.Fatalf("output files %v", files)
	}
	for _, p := range files {
		if fi, err := os.Stat(p); err != nil || fi.Size() > limit {
			t.Errorf("%s: %v bytes, cap %d", p, fi.Size(), limit)
		}
	}
}
