package search

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func TestRareIndexAgreesWithBytesIndex(t *testing.T) {
	alpha := rapid.SliceOf(rapid.SampledFrom([]byte("abAB.eN\n")))
	rapid.Check(t, func(rt *rapid.T) {
		s := alpha.Draw(rt, "s")
		needle := rapid.SliceOfN(rapid.SampledFrom([]byte("abAB.eN\n")), 0, 5).Draw(rt, "needle")
		want := bytes.Index(s, needle)
		if got := rareIndex(s, needle, rarest(needle, false)); got != want {
			rt.Fatalf("rareIndex(%q, %q) = %d, want %d", s, needle, got, want)
		}
		lower := bytes.ToLower(needle)
		wantFold := bytes.Index(bytes.ToLower(s), lower) // the alphabet is ASCII
		if got := rareFoldIndex(s, lower, rarest(lower, true)); got != wantFold {
			rt.Fatalf("rareFoldIndex(%q, %q) = %d, want %d", s, lower, got, wantFold)
		}
	})
}

func TestRarestPicksTheUncommonByte(t *testing.T) {
	for _, tc := range []struct {
		needle string
		fold   bool
		want   byte
	}{
		{"errors.New", false, 'N'},
		{"Error", false, 'E'},
		{"syntax error", true, 'y'}, // x is common in hex and index names
	} {
		if got := tc.needle[rarest([]byte(tc.needle), tc.fold)]; got != tc.want {
			t.Errorf("rarest(%q) = %q, want %q", tc.needle, got, tc.want)
		}
	}
}

// corpus is up to 32 MB of the Go tree's .go files, concatenated.
func corpus(b *testing.B) []byte {
	b.Helper()
	var buf bytes.Buffer
	dir, _ := benchTree(b)
	root := dir
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || buf.Len() > 32<<20 {
			return nil
		}
		data, _ := os.ReadFile(p)
		buf.Write(data)
		return nil
	})
	return buf.Bytes()
}

// The literal search kernels on the same corpus: count the occurrences of a needle that starts
// with a common letter, and of one ignoring case.
//
//	go test ./tools/search -run '^$' -bench LiteralIndex -count 5
func BenchmarkLiteralIndex(b *testing.B) {
	data := corpus(b)
	count := func(b *testing.B, index func([]byte) int) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			for pos := 0; ; {
				i := index(data[pos:])
				if i < 0 {
					break
				}
				pos += i + 1
			}
		}
	}
	needle := []byte("errors.New")
	b.Run("bytes.Index", func(b *testing.B) { count(b, func(s []byte) int { return bytes.Index(s, needle) }) })
	rare := rarest(needle, false)
	b.Run("rareIndex", func(b *testing.B) { count(b, func(s []byte) int { return rareIndex(s, needle, rare) }) })
	fold := []byte("syntax error")
	b.Run("firstByteFold", func(b *testing.B) { count(b, func(s []byte) int { return rareFoldIndex(s, fold, 0) }) })
	rf := rarest(fold, true)
	b.Run("rareFoldIndex", func(b *testing.B) { count(b, func(s []byte) int { return rareFoldIndex(s, fold, rf) }) })
}
