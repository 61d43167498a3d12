package agenttool

import (
	"testing"

	"github.com/reinsdev/reins/llm"
)

// The overhead of a sub-agent round trip — spawn it, let it make one tool call, return its
// text — against the same call made by the parent, with the in-process provider:
//
//	go test ./tools/agenttool -run '^$' -bench RoundTrip -benchtime 2000x -count 5
func BenchmarkRoundTrip(b *testing.B) {
	glob := `{"pattern":"*.go"}`
	b.Run("parent", func(b *testing.B) {
		h := newHarness(&testing.T{}, harnessOpts{})
		defer h.manager.Close()
		b.ReportAllocs()
		for b.Loop() {
			h.router.script(parentKey, use("Glob", glob), say("done"))
			if _, err := h.parent.Run(b.Context(), nil, llm.UserText("go")); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sub-agent", func(b *testing.B) {
		h := newHarness(&testing.T{}, harnessOpts{})
		defer h.manager.Close()
		gp := key(builtin("general-purpose"))
		b.ReportAllocs()
		for b.Loop() {
			h.router.script(parentKey, use("Agent", `{"description":"d","prompt":"p"}`), say("done"))
			h.router.script(gp, use("Glob", glob), say("found"))
			if _, err := h.parent.Run(b.Context(), nil, llm.UserText("go")); err != nil {
				b.Fatal(err)
			}
		}
	})
}
