package bashrules

import (
	"fmt"
	"testing"
)

// TestOneSimpleCommandCache checks that a remembered answer is the answer: asked twice, each
// string gets what a fresh parse says, and the cache stays bounded.
func TestOneSimpleCommandCache(t *testing.T) {
	cases := map[string]bool{
		"git status":           true,
		"npm run build":        true,
		"export A=1":           true,
		"git status; rm -rf x": false,
		"git status && ls":     false,
		"ls > out":             false,
		"echo $(id)":           false,
		"echo $HOME":           false,
		"if true; then ls; fi": false,
		"ls |":                 false,
		"a=1":                  false,
	}
	for s, want := range cases {
		for round := range 2 {
			if got := oneSimpleCommand(s); got != want || got != parseOneSimple(s) {
				t.Errorf("round %d: oneSimpleCommand(%q) = %v, want %v", round, s, got, want)
			}
		}
	}
	for i := range maxCached + 10 {
		oneSimpleCommand(fmt.Sprintf("echo %d", i))
	}
	simpleCache.mu.Lock()
	n := len(simpleCache.m)
	simpleCache.mu.Unlock()
	if n > maxCached {
		t.Errorf("cache holds %d answers, more than %d", n, maxCached)
	}
}
