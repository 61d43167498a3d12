package sdkproto

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
)

func TestCompactBoundaryLine(t *testing.T) {
	c := &Collector{}
	e := &Emitter{W: c, SessionID: "s"}
	msg := llm.UserText("summary")
	e.Handle(agent.Event{Type: agent.EventCompact, Boundary: &agent.Boundary{Trigger: "auto", PreTokens: 180_000, PostTokens: 900, Duration: 1500 * time.Millisecond}, Message: &msg})
	// A sub-agent's compaction is its own affair.
	e.Handle(agent.Event{Type: agent.EventCompact, Boundary: &agent.Boundary{Trigger: "auto"}, Message: &msg, ParentToolUseID: "toolu_1"})
	if len(c.Lines) != 1 {
		t.Fatalf("%d lines, want one compact_boundary", len(c.Lines))
	}
	b, _ := json.Marshal(c.Lines[0])
	for _, want := range []string{`"type":"system"`, `"subtype":"compact_boundary"`, `"compact_metadata":{"trigger":"auto","pre_tokens":180000,"post_tokens":900,"duration_ms":1500}`, `"session_id":"s"`, `"uuid":"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %s", b, want)
		}
	}
}

func TestContextUsageResponse(t *testing.T) {
	u := agent.ContextUsage{Model: "m", Window: 200_000, Threshold: 178_808, AutoCompact: true, Tokens: 50_000, Measured: true,
		Last: llm.Usage{InputTokens: 40_000, OutputTokens: 10}, System: 3000, Memory: 1000, Tools: 6000, Messages: 41_000}
	r := contextUsageResponse(u)
	rows := map[string]int{}
	for _, c := range r.Categories {
		rows[c.ID] = c.Tokens
	}
	want := map[string]int{"system_prompt": 2000, "memory_files": 1000, "system_tools": 6000, "messages": 41_000,
		"autocompact_buffer": 21_192, "free_space": 200_000 - 50_000 - 21_192}
	for id, n := range want {
		if rows[id] != n {
			t.Errorf("%s: %d tokens, want %d", id, rows[id], n)
		}
	}
	if r.Percentage != 25 || r.APIUsage == nil || r.APIUsage.InputTokens != 40_000 || r.AutoCompactThreshold != 178_808 {
		t.Errorf("response %+v", r)
	}
	u.AutoCompact = false
	for _, c := range contextUsageResponse(u).Categories {
		if c.Kind == "buffer" {
			t.Error("a buffer row with automatic compaction off")
		}
	}
}
