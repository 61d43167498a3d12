package openaicompat

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run if a test leaves goroutines behind, such as a
// stream reader still blocked after its context was cancelled.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
