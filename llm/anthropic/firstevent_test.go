//go:build unix

package anthropic

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/llmtest"
)

// BenchmarkFirstEvent measures what a user waits for before the first word of an answer: from
// Stream's call to the first text event, for a request the size of a session's (a long system
// prompt, a built-in-sized tool set, a tool round trip), against the fake API on loopback. It
// reports the median of the runs as first-text-ns; ns/op is the whole turn. Run with
// -tags anthropicsdk to measure the same through anthropic-sdk-go (see sdkStream).
func BenchmarkFirstEvent(b *testing.B) {
	srv := llmtest.NewAnthropicServer(b, llmtest.Turn{Text: strings.Fields(strings.Repeat("word ", 40))})
	srv.Repeat()
	p := newTestProvider(srv.URL, 0, nil)
	req := &llm.Request{Model: "m", MaxTokens: 1000, Cache: llm.CacheAuto,
		System: llm.SystemText(strings.Repeat("You are a coding agent. ", 400)),
		Tools:  bigTools(18), Messages: []llm.Message{llm.UserText("read file.txt"),
			{Role: llm.RoleAssistant, Content: []llm.Block{llm.ToolUse("t1", "Read", json.RawMessage(`{"file_path":"file.txt"}`))}},
			{Role: llm.RoleUser, Content: []llm.Block{llm.ToolResult("t1", []llm.Block{llm.Text(strings.Repeat("1\thello\n", 200))}, false)}}}}
	var firsts []time.Duration
	b.ReportAllocs()
	cpu0 := cpuTime(b)
	for b.Loop() {
		start := time.Now()
		var first time.Duration
		_, err := p.Stream(b.Context(), req, func(ev llm.Event) {
			if first == 0 && ev.Type == llm.EventTextDelta {
				first = time.Since(start)
			}
		})
		if err != nil {
			b.Fatal(err)
		}
		firsts = append(firsts, first)
	}
	// The process's CPU time (the fake server's included, the same on both sides) is what
	// a loaded machine does not inflate, unlike the wall clock.
	b.ReportMetric(float64(cpuTime(b)-cpu0)/float64(len(firsts)), "cpu-ns/op")
	slices.Sort(firsts)
	b.ReportMetric(float64(firsts[len(firsts)/2]), "first-text-ns")
	b.ReportMetric(float64(firsts[0]), "min-first-text-ns")
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
