package built

import (
	"slices"
	"sync"
	"testing"
)

func TestMarkAndParts(t *testing.T) {
	reset()
	if got := Parts(); len(got) != 0 {
		t.Fatalf("Parts = %v before any Mark", got)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			Mark(Sandbox)
			Mark(Knowledge)
		})
	}
	wg.Wait()
	if got := Parts(); !slices.Equal(got, []Part{Knowledge, Sandbox}) {
		t.Errorf("Parts = %v", got)
	}
	reset()
}
