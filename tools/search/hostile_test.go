package search

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinsdev/reins/boundedfile/boundedfiletest"
)

// An ignore file a repository planted as a FIFO, a device or a folder neither hangs nor
// swells a search by the Go engine: it counts as absent.
func TestHostileIgnoreFilesAreSkipped(t *testing.T) {
	for _, h := range boundedfiletest.Hostile(8 << 20) {
		for _, name := range []string{".gitignore", ".ignore", ".rgignore"} {
			t.Run(h.Name+"/"+name, func(t *testing.T) {
				dir := t.TempDir()
				writeTree(t, dir, [][2]string{{"a.txt", "needle\n"}, {".git/HEAD", "ref: refs/heads/main\n"}})
				h.Make(t, filepath.Join(dir, name))
				env := newEnv(t, dir)
				done := make(chan string, 1)
				go func() {
					done <- run(t, NewGrep(Options{Getenv: func(string) string { return "" }}), env, `{"pattern":"needle"}`).TextOf()
				}()
				select {
				case got := <-done:
					if !strings.Contains(got, "a.txt") {
						t.Errorf("Grep found %q, want a.txt", got)
					}
				case <-time.After(time.Minute): // a failure guard, not a timing assertion
					t.Fatal("Grep hung on the ignore file")
				}
			})
		}
	}
}
