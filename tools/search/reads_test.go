package search

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestGrepReportsMatchedFiles: every mode names the files that matched in Result.Reads (the
// files a page leaves out too).
func TestGrepReportsMatchedFiles(t *testing.T) {
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
	// A listed name or a count tells what the file holds too: enough searches spell a key.
	for _, mode := range []string{"files_with_matches", "count"} {
		res := run(t, g, env, `{"pattern":"KEY=s","path":"`+dir+`","output_mode":"`+mode+`"}`)
		if !slices.Equal(res.Reads, []string{filepath.Join(dir, ".env")}) {
			t.Errorf("%s: Reads %v, want the file that matched", mode, res.Reads)
		}
	}
	if res := run(t, g, env, `{"pattern":"nomatch","path":"`+dir+`"}`); len(res.Reads) != 0 {
		t.Errorf("no match: Reads %v", res.Reads)
	}
}
