package search

import (
	"bytes"
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
