package search

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestGrepContentReports: content mode names every file whose lines matched in Result.Reads
// (the files a page leaves out too); the modes that show names and counts name none.
func TestGrepContentReports(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, [][2]string{{".env", "KEY=secret\n"}, {"a.go", "// KEY here\n"}, {"b.go", "nothing\n"}})
	g := NewGrep(Options{Getenv: func(string) string { return "" }})
	env := newEnv(t, dir)
	res := run(t, g, env, `{"pattern":"KEY","path":"`+dir+`","output_mode":"content","head_limit":1}`)
	got := slices.Sorted(slices.Values(res.Reads))
	want := []string{filepath.Join(dir, ".env"), filepath.Join(dir, "a.go")}
	if !slices.Equal(got, want) {
		t.Errorf("content mode: Reads %v, want %v", got, want)
	}
	res = run(t, g, env, `{"pattern":"KEY","path":"`+filepath.Join(dir, ".env")+`","output_mode":"content"}`)
	if !slices.Equal(res.Reads, []string{filepath.Join(dir, ".env")}) {
		t.Errorf("content mode on one file: Reads %v", res.Reads)
	}
	for _, mode := range []string{"files_with_matches", "count"} {
		if res := run(t, g, env, `{"pattern":"KEY","path":"`+dir+`","output_mode":"`+mode+`"}`); len(res.Reads) != 0 {
			t.Errorf("%s: Reads %v, want none", mode, res.Reads)
		}
	}
}
