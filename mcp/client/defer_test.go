package client

import (
	"slices"
	"strings"
	"testing"

	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/tools/toolsearch"
)

func TestTwoHundredToolsAreDeferredAndToolSearchLoadsOne(t *testing.T) {
	m := start(t, Options{}, testEntry("big", "many:200"))
	mcpTools := m.Tools()
	if len(mcpTools) != 200 {
		t.Fatalf("tools = %d", len(mcpTools))
	}
	// 200 tools of ~100 tokens are ~10% of a 200k window: deferred at 5%, not at 50%.
	if !toolsearch.Decide(mcpTools, 5, toolsearch.DefaultContextTokens) || toolsearch.Decide(mcpTools, 50, toolsearch.DefaultContextTokens) {
		t.Fatalf("Decide: 5%% %v, 50%% %v", toolsearch.Decide(mcpTools, 5, toolsearch.DefaultContextTokens), toolsearch.Decide(mcpTools, 50, toolsearch.DefaultContextTokens))
	}
	d := tool.NewDeferral(true)
	ts := toolsearch.New(mcpTools, d)
	if sent := d.Sent(append([]tool.Tool{ts}, mcpTools...)); len(sent) != 1 || sent[0].Name() != toolsearch.Name {
		t.Fatalf("sent before a search = %v", names(sent))
	}
	if !strings.Contains(ts.Spec().Description, "mcp__big__tool_199") {
		t.Error("ToolSearch's description does not name the deferred tools")
	}
	res := run(t, ts, `{"query":"weather forecast city"}`)
	if !strings.HasPrefix(res.TextOf(), "Loaded mcp__big__tool_137:") || !strings.Contains(res.TextOf(), `"pattern": "^[a-z ]+$"`) {
		t.Fatalf("search result = %.300s", res.TextOf())
	}
	sent := names(d.Sent(mcpTools))
	if !slices.Equal(sent, []string{"mcp__big__tool_137"}) {
		t.Errorf("sent after the search = %v", sent)
	}
	run(t, ts, `{"query":"select:mcp__big__tool_001,mcp__big__tool_002"}`)
	if n := len(d.Sent(mcpTools)); n != 3 {
		t.Errorf("sent after select = %d tools", n)
	}
	// The loaded tool works end to end.
	if got := run(t, find(t, mcpTools, "mcp__big__tool_137"), `{"text":"paris"}`).TextOf(); got != "tool_137 says paris" {
		t.Errorf("call = %q", got)
	}
}
