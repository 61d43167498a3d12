package boundedfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsdev/reins/boundedfile/boundedfiletest"
)

// TestOpenRefusesWhatIsNotARegularFile: Open judges the opened descriptor as Read and Lines
// do; only the size is left to the reads.
func TestOpenRefusesWhatIsNotARegularFile(t *testing.T) {
	for _, h := range boundedfiletest.Hostile(1 << 20) {
		t.Run(h.Name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "f")
			h.Make(t, p)
			var f *File
			err := within(t, func() error {
				var err error
				f, err = Open(p, "test file")
				return err
			})
			if strings.HasPrefix(h.Name, "sparse") {
				if err != nil {
					t.Fatalf("Open of a large regular file = %v", err)
				}
				defer f.Close()
				if f.Size() != 1<<20+1 {
					t.Errorf("Size = %d", f.Size())
				}
				return
			}
			var nr *NotRegularError
			if !errors.As(err, &nr) || !strings.Contains(err.Error(), h.Want) || !strings.Contains(err.Error(), "test files are read only from regular files") {
				t.Errorf("Open = %v, want %q", err, h.Want)
			}
		})
	}
}

// TestFileLinesFromAnOffset: the lines from an offset, bounded from there; a long line is
// named by its offset, since its number is not known.
func TestFileLinesFromAnOffset(t *testing.T) {
	p := writeFile(t, "one\ntwo\nthree\nfour")
	f, err := Open(p, "")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got []string
	if err := f.Lines(t.Context(), 4, Limits{MaxBytes: 14}, func(l []byte) error {
		got = append(got, string(l))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "|") != "two\n|three\n|four" {
		t.Errorf("lines %q", got)
	}
	var tl *TooLargeError
	if err := f.Lines(t.Context(), 4, Limits{MaxBytes: 13, Kind: "k"}, func([]byte) error { return nil }); !errors.As(err, &tl) || tl.Size != 14 {
		t.Errorf("Lines over the cap from the offset = %v", err)
	}
	var lt *LineTooLongError
	err = f.Lines(t.Context(), 4, Limits{MaxBytes: 100, MaxLine: 4, Kind: "k"}, func([]byte) error { return nil })
	if !errors.As(err, &lt) || lt.Line != 0 || lt.Offset != 8 || !strings.Contains(err.Error(), p+": the line at byte 8 is too long (ks may have lines of at most 4 bytes") {
		t.Errorf("a long line after the offset = %v", err)
	}
	err = f.Lines(t.Context(), 0, Limits{MaxBytes: 100, MaxLine: 4, Kind: "k"}, func([]byte) error { return nil })
	if !errors.As(err, &lt) || lt.Line != 3 || lt.Offset != 8 {
		t.Errorf("a long line from the start = %v", err)
	}
	if err := f.Lines(t.Context(), 99, Limits{MaxBytes: 100}, nil); err == nil {
		t.Error("Lines past the end succeeded")
	}
	buf := make([]byte, 3)
	if n, err := f.ReadAt(buf, 8); err != nil || string(buf[:n]) != "thr" {
		t.Errorf("ReadAt = %q, %v", buf[:n], err)
	}
	if _, err := Open(filepath.Join(t.TempDir(), "missing"), ""); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open of a missing file = %v", err)
	}
}
