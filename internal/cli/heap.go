package cli

import (
	"os"
	"runtime"
	"runtime/debug"
)

// startingHeapPercent puts the first garbage collection at about 16 MB of heap instead of
// the runtime's 4 MB: the runtime's minimum heap goal is 4 MB times GOGC/100.
const startingHeapPercent = 400

// raiseStartingHeap lets the first collection wait until the heap is larger, then restores
// the usual pacing, as the Go compiler does for its own short runs. A headless turn
// allocates a few megabytes and used to pay for one collection (about 2 ms of CPU and
// the pages the collector touches) just before exiting; a long session collects as before
// from the first cycle on, so it keeps at most one cycle's extra garbage once. A GOGC or
// GOMEMLIMIT set by the user is left alone.
func raiseStartingHeap() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	old := debug.SetGCPercent(startingHeapPercent)
	// The sentinel is unreachable from the start, so the first cycle finds it and runs its
	// finalizer. It holds a pointer so that it is not placed in the tiny allocator's blocks,
	// whose objects are finalized only when the whole block is free.
	sentinel := &struct{ p *int }{}
	runtime.SetFinalizer(sentinel, func(*struct{ p *int }) { debug.SetGCPercent(old) })
}
