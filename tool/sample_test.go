package tool_test

import (
	"testing"

	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/tools"
)

// TestSampleInput: every built-in tool has a sample input, so flags that depend on the input
// (tools list, MCP annotations) are computed for a real input rather than read as false.
func TestSampleInput(t *testing.T) {
	for _, bt := range tools.Base(tools.Options{Getenv: func(string) string { return "" }}) {
		if tool.SampleInput(bt) == nil {
			t.Errorf("%s: no sample input decodes", bt.Name())
		}
	}
}
