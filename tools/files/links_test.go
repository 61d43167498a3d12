package files

import (
	"os"
	"testing"
	"time"
)

// TestEditKeepsHardLinks: Edit and Write of a file with two names change the one file both
// names share; renaming a new file over one name used to split them.
func TestEditKeepsHardLinks(t *testing.T) {
	f := newFixture(t)
	edit, write, read := NewEdit(Options{}), NewWrite(Options{}), NewRead(Options{})
	p := f.write("a.txt", "one\ntwo\n")
	other := f.path("b.txt")
	if err := os.Link(p, other); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	if err := os.Chmod(p, 0o640); err != nil {
		t.Fatal(err)
	}
	f.mustOK(read, obj{"file_path": p})
	f.mustOK(edit, obj{"file_path": p, "old_string": "one", "new_string": "uno"})
	if got := f.read("b.txt"); got != "uno\ntwo\n" {
		t.Errorf("after Edit the other link reads %q", got)
	}
	f.mustOK(write, obj{"file_path": p, "content": "short\n"})
	if got := f.read("b.txt"); got != "short\n" {
		t.Errorf("after Write the other link reads %q", got)
	}
	a, _ := os.Stat(p)
	b, _ := os.Stat(other)
	if !os.SameFile(a, b) || a.Mode().Perm() != 0o640 {
		t.Errorf("links split or mode changed: same %v, mode %v", os.SameFile(a, b), a.Mode())
	}
}

// TestEditRefusesChangeWithRestoredMtime: a file changed after the read whose modification
// time was set back to what it was is still a changed file, after a whole or a partial read.
func TestEditRefusesChangeWithRestoredMtime(t *testing.T) {
	for _, partial := range []bool{false, true} {
		f := newFixture(t)
		edit, read := NewEdit(Options{}), NewRead(Options{})
		p := f.write("f.txt", "one\ntwo\nthree\n")
		past := time.Now().Add(-time.Hour).Truncate(time.Second)
		if err := os.Chtimes(p, past, past); err != nil {
			t.Fatal(err)
		}
		in := obj{"file_path": p}
		if partial {
			in = obj{"file_path": p, "offset": 2, "limit": 1}
		}
		f.mustOK(read, in)
		// Same length, so the size does not give it away either. The inode change time has
		// the file system's clock resolution: rewrite until it moved past the read's.
		r, _ := f.env.Files.Lookup(p)
		for i := 0; ; i++ {
			if err := os.WriteFile(p, []byte("one\nTWO\nthree\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(p, past, past); err != nil {
				t.Fatal(err)
			}
			fi, _ := os.Stat(p)
			if !partial || !changeTime(fi).Equal(r.Change) {
				break
			}
			if i == 500 {
				t.Fatal("the inode change time never moved")
			}
			time.Sleep(5 * time.Millisecond)
		}
		f.mustFail(edit, obj{"file_path": p, "old_string": "three", "new_string": "3"}, "validate", msgModified)
	}
}
