package cmdline

import (
	"regexp"
	"sync"
)

// Tables and patterns that only a Bash decision needs are built on first use rather than in
// the package's init, which every run of reins pays, including runs that never see a Bash
// command.

// lazyRE compiles expr the first time it is used. The patterns are constants: a bad one
// panics in the first test that uses it (TestLazyPatternsCompile uses them all).
func lazyRE(expr string) func() *regexp.Regexp {
	f := sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
	lazyPatterns = append(lazyPatterns, f)
	return f
}

// lazyPatterns lists every lazyRE, for the test that compiles them all.
var lazyPatterns []func() *regexp.Regexp
