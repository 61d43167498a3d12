package audit

import (
	"testing"
	"time"

	"github.com/reinsdev/reins/audit"
)

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Time
		err  bool
	}{
		{"90m", now.Add(-90 * time.Minute), false},
		{"24h", now.Add(-24 * time.Hour), false},
		{"7d", now.Add(-7 * 24 * time.Hour), false},
		{"2026-01-31T09:00:00Z", time.Date(2026, 1, 31, 9, 0, 0, 0, time.UTC), false},
		{"2026-01-31", time.Date(2026, 1, 31, 0, 0, 0, 0, time.Local), false},
		{"-1h", time.Time{}, true},
		{"yesterday", time.Time{}, true},
	}
	for _, tt := range tests {
		got, err := parseSince(tt.in, now)
		if (err != nil) != tt.err || !got.Equal(tt.want) {
			t.Errorf("parseSince(%q) = %v, %v; want %v (error %v)", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestAuditFilter(t *testing.T) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	e := audit.Entry{Kind: audit.KindDecision, Session: "s1", Tool: "Bash", Decision: "deny", Time: now.Add(-time.Hour)}
	tests := []struct {
		f    auditFilter
		want bool
	}{
		{auditFilter{}, true},
		{auditFilter{session: "s1", tool: "Bash", decision: "deny", kind: "decision"}, true},
		{auditFilter{session: "s2"}, false},
		{auditFilter{tool: "Read"}, false},
		{auditFilter{decision: "allow"}, false},
		{auditFilter{kind: "run"}, false},
		{auditFilter{since: "2h"}, true},
		{auditFilter{since: "30m"}, false},
		{auditFilter{until: "30m"}, true},
		{auditFilter{until: "2h"}, false},
	}
	for _, tt := range tests {
		match, err := tt.f.compile(now)
		if err != nil {
			t.Fatal(err)
		}
		if got := match(e); got != tt.want {
			t.Errorf("%+v: match = %v, want %v", tt.f, got, tt.want)
		}
	}
	if _, err := (auditFilter{decision: "maybe"}).compile(now); err == nil {
		t.Error("--decision maybe was accepted")
	}
}

func TestAuditLine(t *testing.T) {
	e := audit.Entry{Seq: 4, Kind: audit.KindDecision, Session: "57cd6d2a-5fd3-4bc2", Tool: "Bash", Decision: "deny",
		Rule: "Bash(rm:*)", RuleSource: "localSettings", RuleOrigin: "/p/.reins/settings.local.json:1:50", PolicyVersion: "7",
		Time: time.Date(2026, 3, 10, 12, 0, 0, 0, time.Local)}
	want := "4 2026-03-10 12:00:00 57cd6d2a decision Bash deny by Bash(rm:*) from localSettings (/p/.reins/settings.local.json:1:50) policy v7"
	if got := auditLine(e); got != want {
		t.Errorf("auditLine =\n%s\nwant\n%s", got, want)
	}
}
