package bash

import (
	"os"
	"sync"
	"testing"
)

// TestConcurrentShellsKeepTheirOutputDirs: many Shells starting at once — mcp serve's
// sessions under load — each sweep the folders of dead Shells as they create their own. No
// sweep may remove a living Shell's folder: every Shell gets its folder and rc file, and both
// are still there once all have started. (A sweep could take the lock of a folder whose owner
// had created the lock file but not yet locked it, and remove the folder: its first Bash call
// failed with "creating the output directory: … cwd-trap.sh: no such file or directory".)
func TestConcurrentShellsKeepTheirOutputDirs(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	const rounds, shells = 10, 64
	for range rounds {
		all := make([]*Shell, shells)
		errs := make([]error, shells)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range all {
			all[i] = New(Options{})
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				_, _, errs[i] = all[i].outputDir()
			}()
		}
		close(start)
		wg.Wait()
		for i, s := range all {
			if errs[i] != nil {
				t.Fatalf("shell %d of %d starting at once: %v", i, shells, errs[i])
			}
			if _, err := os.Stat(s.rcFile); err != nil {
				t.Fatalf("shell %d's folder was swept while it lived: %v", i, err)
			}
		}
		for _, s := range all {
			s.Close()
		}
	}
}
