//go:build linux

package search

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestTruncatedMappedFileIsSkipped maps a large file, truncates it underneath the search (as a
// build rewriting a log does), and requires the search to skip the file instead of the
// SIGBUS ending the program.
func TestTruncatedMappedFileIsSkipped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.log")
	content := bytes.Repeat([]byte("no match on this line\n"), 4*mmapThreshold/22)
	if err := os.WriteFile(path, content, 0o644); err != nil {
		t.Fatal(err)
	}
	var scratch []byte
	data, release, err := loadFile(path, &scratch)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if len(scratch) != 0 || len(data) != len(content) {
		t.Fatalf("a %d-byte file was read into the scratch buffer, not mapped", len(content))
	}
	m, err := compileMatcher("needle", false, false)
	if err != nil {
		t.Fatal(err)
	}
	q := &query{pattern: "needle", mode: modeContent}
	if r := m.searchLoaded(q, "big.log", data, nil); r != nil {
		t.Fatalf("before truncation: %+v", r)
	}
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	if r := m.searchLoaded(q, "big.log", data, nil); r != nil {
		t.Fatalf("after truncation: %+v", r)
	}
}
