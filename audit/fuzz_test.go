package audit

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzReader: any bytes as a log file are read without a panic, and every line the reader
// hands on is one that was in the input, without its newline and within the bound.
func FuzzReader(f *testing.F) {
	f.Add([]byte(`{"seq":1,"prev":"` + Genesis + `","time":"2026-01-01T00:00:00Z","kind":"decision"}` + "\n"))
	f.Add([]byte("{}\n{\"seq\":2}\n"))
	f.Add([]byte("no newline"))
	f.Fuzz(func(t *testing.T, data []byte) {
		err := scanLines(bytes.NewReader(data), "fuzz", func(n int, line []byte) error {
			if bytes.IndexByte(line, '\n') >= 0 || len(line) > maxLine {
				t.Fatalf("line %d: %q", n, line)
			}
			if !bytes.Contains(data, line) {
				t.Fatalf("line %d not in the input", n)
			}
			decodeEntry(line)
			return nil
		})
		var be *BreakError
		if err != nil && !errors.As(err, &be) {
			t.Fatalf("reading from memory failed with %v, want only breaks", err)
		}
	})
}
