package cli

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// gcPercent reads the current GOGC setting (SetGCPercent is the only reader).
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// TestStartingHeapIsRaisedOnce: the raised setting holds until the first collection, after
// which the previous one is back.
func TestStartingHeapIsRaisedOnce(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	before := gcPercent()
	raiseStartingHeap()
	if got := gcPercent(); got != startingHeapPercent {
		t.Fatalf("GOGC after raiseStartingHeap = %d, want %d", got, startingHeapPercent)
	}
	deadline := time.Now().Add(30 * time.Second)
	for gcPercent() != before {
		if time.Now().After(deadline) {
			t.Fatalf("GOGC is still %d after collections; want %d back", gcPercent(), before)
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
}

// TestStartingHeapLeavesUserSettingAlone: GOGC or GOMEMLIMIT from the environment wins.
func TestStartingHeapLeavesUserSettingAlone(t *testing.T) {
	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv("GOGC", "")
			t.Setenv("GOMEMLIMIT", "")
			t.Setenv(env, "200")
			before := gcPercent()
			raiseStartingHeap()
			if got := gcPercent(); got != before {
				debug.SetGCPercent(before)
				t.Errorf("GOGC = %d with %s set, want it left at %d", got, env, before)
			}
		})
	}
}
