package bashrules

import (
	"context"
	"os"
	"testing"

	"github.com/reinsdev/reins/permission"
)

// TestCheckClosesWhatItOpens: a decision may keep the working directory open for its
// look-ups (see permission.StatCacheContext); none is left open after it, whatever it decides.
func TestCheckClosesWhatItOpens(t *testing.T) {
	f := newFixture(t)
	pc := f.context(t, permission.ModeDefault, "allow:Bash(make test)", denyEnv, "deny:Bash(rm:*)")
	cmds := []string{benchCommand, "ls src && cat .env", "rm -rf src", "cat sub/a.txt link-out/secret", "make test", "git status"}
	open := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		return len(ents)
	}
	before := open()
	for range 50 {
		for _, c := range cmds {
			Check(context.Background(), pc, c)
			Explain(context.Background(), pc, c)
		}
	}
	if after := open(); after > before {
		t.Errorf("%d descriptors open after 600 decisions, %d before", after, before)
	}
}
