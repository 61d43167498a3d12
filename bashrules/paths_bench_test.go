package bashrules

import (
	"strings"
	"testing"
)

// pathBenchCommands are calls whose paths come from a role (tac, column, rm), from registered
// code (grep, sed, cp, find, git, chmod) or from an option the entry types (diff -X).
var pathBenchCommands = []string{"tac a b", "column -t f", "rm -rf build", "grep -rn TODO src", "sed -i s/a/b/ f",
	"cp -r a b", "find . -name x -delete", "git show HEAD:x", "chmod --reference r f", "diff -X ex a b"}

// BenchmarkPaths is the path stage's reading of ten calls' arguments: the lookup of each
// program's path code, the code, and the options its entry types.
func BenchmarkPaths(b *testing.B) {
	type call struct {
		name string
		args []Word
	}
	var calls []call
	for _, c := range pathBenchCommands {
		f := strings.Fields(c)
		var args []Word
		for _, s := range f[1:] {
			args = append(args, Word{Src: s, Value: s, Known: true})
		}
		calls = append(calls, call{f[0], args})
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range calls {
			f, ok := pathFuncOf(c.name)
			if !ok {
				b.Fatalf("%s has no path code", c.name)
			}
			r := f(c.args)
			_ = kbPathUses(c.name, c.args, r.uses)
		}
	}
}
