package cmdline

import (
	"regexp"
	"sync"
)

// Tables and patterns that only a Bash decision needs are built on first use rather than in
// the package's init, which every run of reins pays, including runs that never see a Bash
// command.

// LazyRE compiles expr the first time it is used; bashrules builds its patterns with it too.
// The patterns are constants: a bad one panics in the first test that uses it
// (TestLazyPatternsCompile, in each package, compiles them all).
func LazyRE(expr string) func() *regexp.Regexp {
	f := sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
	lazyPatterns = append(lazyPatterns, f)
	return f
}

// lazyPatterns lists every LazyRE, for the tests that compile them all.
var lazyPatterns []func() *regexp.Regexp

// LazyPatterns returns every pattern LazyRE has made, for the tests that compile them all.
func LazyPatterns() []func() *regexp.Regexp { return lazyPatterns }
