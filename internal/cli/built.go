package cli

import (
	"os"
	"strings"

	"github.com/reinsdev/reins/built"
)

// writeBuilt writes to path, when it is set (REINS_DEBUG_BUILT), the parts built on first use
// that this process built (package built), one a line: how the tests tell that a run that
// does not use one did not build it. A failure to write is not the run's: it is ignored.
func writeBuilt(path string) {
	if path == "" {
		return
	}
	var b strings.Builder
	for _, p := range built.Parts() {
		b.WriteString(string(p) + "\n")
	}
	_ = os.WriteFile(path, []byte(b.String()), 0o600)
}
