package files

import (
	"slices"
	"testing"
)

// TestReadReportsWhatItShowed: a successful Read names its file in Result.Reads, which the
// call pipeline checks against the secret files; a read that showed nothing names nothing.
func TestReadReportsWhatItShowed(t *testing.T) {
	f := newFixture(t)
	env := f.write(".env", "KEY=1\n")
	res := f.mustOK(NewRead(Options{}), obj{"file_path": env})
	if !slices.Equal(res.Reads, []string{env}) {
		t.Errorf("Reads %v, want [%s]", res.Reads, env)
	}
	f.write("big.txt", "x\n")
	o := f.run(NewRead(Options{MaxReadBytes: 1}), obj{"file_path": f.path("big.txt")})
	if o.stage != "call" || len(o.res.Reads) != 0 {
		t.Errorf("a read refused for its size: stage %s, Reads %v", o.stage, o.res.Reads)
	}
}
