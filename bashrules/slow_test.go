package bashrules

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/reinsdev/reins/permission"
)

// TestNoSlowInputs bounds the time of inputs that could make a check walk the file system or
// blow up the analysis.
func TestNoSlowInputs(t *testing.T) {
	f := newFixture(t)
	pc := f.context(t, permission.ModeAcceptEdits, denyEnv)
	inputs := []string{
		"cat /*/*/*/*/*",
		"ls /**/**/**",
		"grep -r x /",
		"cat " + strings.Repeat("*/", 30) + "x",
		"rm -rf " + strings.Repeat("{a,b}", 20),
		"echo " + strings.Repeat("$(", 400) + strings.Repeat(")", 400),
		strings.Repeat("a|", 1500) + "a",
		strings.Repeat("bash -c '", 20) + "ls" + strings.Repeat("'", 20),
		"eval " + strings.Repeat("eval ", 500) + "ls",
		strings.Repeat("timeout 1 ", 300) + "ls",
		"find / -exec cat {} +",
		"cp -r / x",
	}
	for _, in := range inputs {
		start := time.Now()
		Check(context.Background(), pc, in)
		IsReadOnly(pc, in)
		// A generous bound that only a blow-up (exponential work) exceeds, not a slow machine.
		if d := time.Since(start); d > 30*time.Second {
			t.Errorf("Check(%.60q) did not finish in reasonable time: %v", in, d)
		}
	}
}

func TestNoSlowWrappers(t *testing.T) {
	f := newFixture(t)
	pc := f.context(t, permission.ModeDefault, "deny:Bash(rm:*)")
	for _, in := range []string{
		strings.Repeat("strace ", 40) + "ls",
		strings.Repeat("sudo --x ", 40) + "ls",
		strings.Repeat("xargs ", 100) + "ls",
		strings.Repeat("env -x ", 40) + "ls",
		strings.Repeat("a ", 200) + "| bash",
		`python3 -c "` + strings.Repeat("'a b' ", 200) + `"`,
	} {
		start := time.Now()
		Check(context.Background(), pc, in)
		// A generous bound that only a blow-up (exponential work) exceeds, not a slow machine.
		if d := time.Since(start); d > 30*time.Second {
			t.Errorf("Check(%.60q) did not finish in reasonable time: %v", in, d)
		}
	}
}
