package permission

import (
	"strings"
	"testing"
)

func TestParseRule(t *testing.T) {
	tests := []struct {
		in   string
		want RuleValue
	}{
		{"Bash", RuleValue{Tool: "Bash"}},
		{"Bash()", RuleValue{Tool: "Bash"}},
		{"Bash(*)", RuleValue{Tool: "Bash"}},
		{"Bash(npm test:*)", RuleValue{Tool: "Bash", Content: "npm test:*"}},
		{`Bash(echo \(hi\))`, RuleValue{Tool: "Bash", Content: "echo (hi)"}},
		{`Bash(a\\b)`, RuleValue{Tool: "Bash", Content: `a\b`}},
		{"Read(./.env)", RuleValue{Tool: "Read", Content: "./.env"}},
		{"Task", RuleValue{Tool: "Agent"}},
		{"Task(Explore)", RuleValue{Tool: "Agent", Content: "Explore"}},
		{"KillShell", RuleValue{Tool: "TaskStop"}},
		{"BashOutputTool", RuleValue{Tool: "TaskOutput"}},
		{"AgentOutputTool", RuleValue{Tool: "TaskOutput"}},
		{"mcp__srv__tool", RuleValue{Tool: "mcp__srv__tool"}},
		{"(x)", RuleValue{Tool: "(x)"}},
		{`Bash(x\)`, RuleValue{Tool: `Bash(x\)`}},
		{"Bash(x) y", RuleValue{Tool: "Bash(x) y"}},
		{"WebFetch(domain:example.com)", RuleValue{Tool: "WebFetch", Content: "domain:example.com"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := ParseRule(tt.in); got != tt.want {
				t.Errorf("ParseRule(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
		})
	}
}

func TestRuleRoundTrip(t *testing.T) {
	for _, v := range []RuleValue{
		{Tool: "Bash", Content: "echo (a) \\ b"},
		{Tool: "Bash", Content: `\(`},
		{Tool: "Read", Content: "src/**"},
		{Tool: "Edit"},
	} {
		if got := ParseRule(v.String()); got != v {
			t.Errorf("ParseRule(%q) = %+v, want %+v", v.String(), got, v)
		}
	}
}

func TestValidateRule(t *testing.T) {
	tests := []struct {
		in      string
		wantErr string // substring; "" = valid
	}{
		{"Bash", ""},
		{"Bash(npm test:*)", ""},
		{"Bash(git *)", ""},
		{"Read(src/**)", ""},
		{"Edit(//tmp/**)", ""},
		{"mcp__github", ""},
		{"mcp__github__*", ""},
		{"mcp__github__get_issue", ""},
		{"mcp__*", ""},
		{"mcp__github__get_*", ""},
		{"WebFetch(domain:example.com)", ""},
		{"WebFetch(domain:*.example.com)", ""},
		{"", "empty"},
		{"   ", "empty"},
		{"Bash()", "empty parentheses"},
		{"Bash(foo", "mismatched"},
		{"Bash(foo))", "mismatched"},
		{"Bashfoo)", "mismatched"},
		{"bash(ls)", "uppercase"},
		{"read", "uppercase"},
		{"mcp__srv(x)", "MCP"},
		{"Bash(:*)", "empty"},
		{"Bash(npm:* test)", "end"},
		{"Read(src:*)", "prefix syntax"},
		{"Read(src**)", "whole path segment"},
		{"Edit(a/**b)", "whole path segment"},
		{"WebSearch(foo*)", "wildcards"},
		{"WebFetch(https://example.com)", "domain"},
		{"WebFetch(example.com)", "domain:"},
		{"WebFetch(domain:)", "empty"},
		{"Bash(x) y", "after"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			err := ValidateRule(tt.in)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("ValidateRule(%q) = %v, want nil", tt.in, err)
			case tt.wantErr != "" && err == nil:
				t.Errorf("ValidateRule(%q) = nil, want error containing %q", tt.in, tt.wantErr)
			case tt.wantErr != "" && !strings.Contains(err.Error(), tt.wantErr):
				t.Errorf("ValidateRule(%q) = %v, want error containing %q", tt.in, err, tt.wantErr)
			}
		})
	}
}

// TestToolNameMatches: which tools a tool-wide rule covers, as the context's index finds them.
func TestToolNameMatches(t *testing.T) {
	tests := []struct {
		rule, tool string
		want       bool
	}{
		{"Bash", "Bash", true},
		{"Bash", "BashX", false},
		{"mcp__srv", "mcp__srv__tool", true},
		{"mcp__srv__*", "mcp__srv__tool", true},
		{"mcp__srv__tool", "mcp__srv__tool", true},
		{"mcp__srv__tool", "mcp__srv__other", false},
		{"mcp__srv", "mcp__srv2__tool", false},
		{"mcp__sr", "mcp__srv__tool", false},
		{"mcp__*", "mcp__srv__tool", true},
		{"mcp__*", "Bash", false},
		{"mcp__github__*", "mcp__github__get_issue", true},
		{"mcp__github__get_*", "mcp__github__get_issue", true},
		{"mcp__github__get_*", "mcp__github__create_issue", false},
		{"mcp__github__get_*", "mcp__github2__get_issue", false},
		{"mcp__*__search", "mcp__docs__search", true},
		{"mcp__*__search", "mcp__docs__search_all", false},
		{"mcp__git*", "mcp__github__x", true},
	}
	for _, tt := range tests {
		pc := mustNew(t, Config{Rules: rules(Deny, SourceUser, tt.rule)})
		if got := pc.ToolWideRule(Deny, tt.tool) != nil; got != tt.want {
			t.Errorf("rule %q covers %q: %v, want %v", tt.rule, tt.tool, got, tt.want)
		}
	}
}

func FuzzParseRule(f *testing.F) {
	for _, s := range []string{"Bash", "Bash(npm test:*)", `Bash(echo \(x\))`, "Read(//tmp/**)", "mcp__a__b", "Bash()", "Bash(*)", `x\\(y)`, "((", "Task(a)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v := ParseRule(s)
		_ = ValidateRule(s)
		// Formatting a parsed rule and parsing it again is stable.
		if again := ParseRule(v.String()); again != v && v.Content != "" {
			t.Errorf("round trip of %q: %+v then %+v", s, v, again)
		}
	})
}
