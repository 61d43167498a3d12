package pathrule

import (
	"reflect"
	"testing"

	"pgregory.net/rapid"
)

// TestBatchAgreesWithCompile compiles a list of patterns through one Batch and checks,
// after all of them are compiled (so a later pattern cannot have overwritten an earlier
// one's shared arrays), that each equals the pattern Compile makes, errors included.
func TestBatchAgreesWithCompile(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		gen := rapid.StringOfN(rapid.SampledFrom([]rune("aZ09._-/*?[]\\ #!é")), 0, 30, -1)
		pats := rapid.SliceOfN(gen, 1, 300).Draw(t, "patterns")
		var b Batch
		got := make([]*Pattern, len(pats))
		errs := make([]error, len(pats))
		for i, s := range pats {
			got[i], errs[i] = b.Compile(s)
		}
		for i, s := range pats {
			want, err := Compile(s)
			if (err == nil) != (errs[i] == nil) || (err != nil && err.Error() != errs[i].Error()) {
				t.Fatalf("Batch.Compile(%q) error %v, Compile %v", s, errs[i], err)
			}
			if !reflect.DeepEqual(got[i], want) {
				t.Fatalf("Batch.Compile(%q) = %+v, Compile %+v", s, got[i], want)
			}
		}
	})
}

// TestBatchLongPattern covers patterns larger than a chunk.
func TestBatchLongPattern(t *testing.T) {
	long := make([]byte, 0, 3*batchRunes)
	for len(long) < 3*batchRunes {
		long = append(long, "abc/"...)
	}
	var b Batch
	for _, s := range []string{"x", string(long) + "z", "y/z"} {
		got, err := b.Compile(s)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := Compile(s)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Batch.Compile of a %d-byte pattern differs from Compile", len(s))
		}
	}
}
