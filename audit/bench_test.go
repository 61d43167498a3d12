package audit

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

// BenchmarkAppend is the cost one entry adds to a tool call: the lock, reading the head,
// one write and the anchor's atomic rewrite.
func BenchmarkAppend(b *testing.B) {
	l, err := Open(Options{Path: filepath.Join(b.TempDir(), "audit.jsonl")})
	if err != nil {
		b.Fatal(err)
	}
	raw := json.RawMessage(`{"command":"go test ./...","description":"Run the tests"}`)
	e := Entry{Kind: KindDecision, Session: "3f2a9c1e-0000-4000-8000-000000000000", Tool: "Bash", ToolUseID: "toolu_01", Decision: "allow",
		Reason: `rule allow "Bash(go test:*)" from localSettings`, Rule: "Bash(go test:*)", RuleSource: "localSettings", RuleOrigin: "/p/.reins/settings.local.json:1:30"}
	b.ReportAllocs()
	for b.Loop() {
		if err := l.Append(e, raw); err != nil {
			b.Fatal(err)
		}
	}
}
