package bashrules

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/reinsdev/reins/permission"
)

func TestZZScratch(t *testing.T) {
	cmds := os.Getenv("CMDS")
	if cmds == "" {
		return
	}
	f := newFixture(t)
	pc := f.context(t, permission.Mode(os.Getenv("MODE")), strings.Fields(os.Getenv("RULES"))...)
	for _, c := range strings.Split(cmds, "\n##\n") {
		d, tr := check(t, pc, f.expand(c))
		out := explain(d, tr)
		if os.Getenv("V") == "" {
			out = strings.SplitN(out, "\n", 2)[0]
		}
		fmt.Printf("%-50q %s\n", c, out)
	}
}
