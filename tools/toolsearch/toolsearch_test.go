package toolsearch

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/reinsdev/reins/tool"
)

func fake(name, desc, hint string, deferred, always bool) tool.Tool {
	return tool.Build(tool.Def[map[string]any]{Name: name, Description: desc, SearchHint: hint, Defer: deferred, AlwaysLoad: always,
		RawSchema: json.RawMessage(`{"type":"object"}`),
		Call: func(context.Context, map[string]any, *tool.Env) (tool.Result, error) {
			return tool.TextResult("ok"), nil
		}})
}

func TestThreshold(t *testing.T) {
	tests := []struct {
		in   string
		want int
		bad  bool
	}{{"", 10, false}, {"auto", 10, false}, {"auto:25", 25, false}, {"true", 0, false}, {"false", 100, false}, {"auto:101", 0, true}, {"maybe", 0, true}}
	for _, tc := range tests {
		got, err := Threshold(tc.in)
		if (err != nil) != tc.bad || (!tc.bad && got != tc.want) {
			t.Errorf("Threshold(%q) = %d, %v", tc.in, got, err)
		}
	}
}

func TestSearch(t *testing.T) {
	pool := []tool.Tool{
		fake("mcp__slack__send_message", "Send a message to a Slack channel", "", true, false),
		fake("mcp__github__create_issue", "Create an issue in a repository", "bug report", true, false),
		fake("mcp__github__list_issues", "List issues of a repository", "", true, false),
		fake("mcp__pinned__always", "Always here", "", true, true),
		fake("Read", "Read a file", "", false, false),
	}
	d := tool.NewDeferral(true)
	ts := New(pool, d)
	if strings.Contains(ts.Spec().Description, "mcp__pinned__always") || strings.Contains(ts.Spec().Description, "\nRead") {
		t.Error("alwaysLoad and non-deferred tools are listed as deferred")
	}
	tests := []struct{ query, want string }{
		{"slack", "mcp__slack__send_message"},
		{"+github issue", "mcp__github__create_issue,mcp__github__list_issues"},
		{"bug", "mcp__github__create_issue"},
		{"select:mcp__github__list_issues,nope", "mcp__github__list_issues"},
		{"select:Read", ""},
		{"+jira issue", ""},
		{"+slack issue", "mcp__slack__send_message"},
	}
	for _, tc := range tests {
		got := search(deferredOf(pool, d), Input{Query: tc.query})
		var ns []string
		for _, x := range got {
			ns = append(ns, x.Name())
		}
		if strings.Join(ns, ",") != tc.want {
			t.Errorf("search(%q) = %v, want %s", tc.query, ns, tc.want)
		}
	}
}

func deferredOf(pool []tool.Tool, d *tool.Deferral) []tool.Tool {
	var out []tool.Tool
	for _, t := range pool {
		if d.Deferred(t) {
			out = append(out, t)
		}
	}
	return out
}
