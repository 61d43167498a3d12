//go:build unix

package audit

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestTheLogsFilesMustBeRegular: whatever stands at one of the log's names — the current
// file, a rotated file, the anchor, the lock — a FIFO, a symlink to a file outside or a
// folder makes Open, Append and Verify fail at once with a *NotRegularError naming it; none of
// them blocks, and the file a symlink points at is never written.
func TestTheLogsFilesMustBeRegular(t *testing.T) {
	for _, name := range []string{"audit.jsonl", "audit.jsonl.1", "audit.jsonl.anchor", "audit.jsonl.lock"} {
		for _, kind := range []string{"fifo", "symlink", "folder"} {
			t.Run(name+"/"+kind, func(t *testing.T) {
				dir := t.TempDir()
				path := filepath.Join(dir, "audit.jsonl")
				outside := filepath.Join(t.TempDir(), "bashrc")
				if err := os.WriteFile(outside, []byte("export SAFE=1\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				if name != "audit.jsonl" {
					// A log with entries, so that verify reads every file.
					l := openTest(t, Options{Path: path})
					appendN(t, l, 2)
					os.Remove(filepath.Join(dir, name))
				}
				planted := filepath.Join(dir, name)
				var err error
				switch kind {
				case "fifo":
					err = syscall.Mkfifo(planted, 0o644)
				case "symlink":
					err = os.Symlink(outside, planted)
				case "folder":
					err = os.Mkdir(planted, 0o755)
				}
				if err != nil {
					t.Fatal(err)
				}
				done := make(chan error, 1)
				go func() {
					l, err := Open(Options{Path: path})
					if err == nil {
						err = l.Append(Entry{Kind: KindSession, Session: "s"}, nil)
					}
					_, verr := Verify(path)
					done <- errors.Join(err, verr)
				}()
				select {
				case err = <-done:
				case <-time.After(10 * time.Second):
					t.Fatalf("the log blocked on a %s at %s", kind, name)
				}
				var nr *NotRegularError
				if !errors.As(err, &nr) || nr.Path != planted {
					t.Errorf("a %s at %s: %v, want a *NotRegularError naming it", kind, name, err)
				}
				if b, _ := os.ReadFile(outside); string(b) != "export SAFE=1\n" {
					t.Errorf("the file the symlink points at was written: %q", b)
				}
			})
		}
	}
}
