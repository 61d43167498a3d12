package tool

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestFileStateNotifyAndReplace: every change is told, a forgotten file with nil, and Restore
// brings a saved state back without telling.
func TestFileStateNotifyAndReplace(t *testing.T) {
	s := NewFileState()
	var told []string
	s.SetNotify(func(p string, r *FileRead) { told = append(told, fmt.Sprintf("%s:%v", p, r != nil)) })
	s.Record("/p/a", FileRead{Hash: "a"})
	s.Record("/p/b", FileRead{Hash: "b"})
	s.Forget("/p/a")
	s.Forget("/p/never")
	s.Retain(func(p string) bool { return false })
	// Paths are told cleaned, in the system's separators.
	a, b := filepath.FromSlash("/p/a"), filepath.FromSlash("/p/b")
	if want := []string{a + ":true", b + ":true", a + ":false", b + ":false"}; !slices.Equal(told, want) {
		t.Errorf("told %v, want %v", told, want)
	}
	told = nil
	s.Replace(map[string]FileRead{"/p/c/../c": {Hash: "c", ModTime: time.Unix(5, 0)}})
	if r, ok := s.Lookup("/p/c"); !ok || r.Hash != "c" || len(told) != 0 {
		t.Errorf("restored %+v %v, told %v", r, ok, told)
	}
}
