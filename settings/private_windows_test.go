package settings

import (
	"os"
	"testing"
)

// wantPrivate checks that p exists. Windows has no mode bits: a file's privacy there is the
// access list it inherits from the user's profile folder, which Reins leaves as it is.
func wantPrivate(t *testing.T, p string, _ os.FileMode) {
	t.Helper()
	if _, err := os.Stat(p); err != nil {
		t.Errorf("%s: %v", p, err)
	}
}
