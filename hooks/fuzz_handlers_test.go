package hooks

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzReadJudgement: no model answer panics the reader, and an answer it accepts is one JSON
// object with a boolean ok — never text that merely contains one.
func FuzzReadJudgement(f *testing.F) {
	for _, s := range []string{`{"ok": true}`, `{"ok": false, "reason": "no"}`, "```json\n{\"ok\": true}\n```", `Sure: {"ok": true}`,
		`{"ok": "true"}`, `{"ok": true}{"ok": false}`, `{"reason": "x"}`, "", "```", `[{"ok": true}]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ok, _, err := ReadJudgement(s)
		if err != nil {
			return
		}
		body := strings.TrimSpace(s)
		if strings.HasPrefix(body, "```") {
			body = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(body, "```"), "json"), "```"))
		}
		var v struct {
			OK *bool `json:"ok"`
		}
		if json.Unmarshal([]byte(body), &v) != nil || v.OK == nil || *v.OK != ok {
			t.Fatalf("accepted %q as ok=%v", s, ok)
		}
	})
}

// FuzzStrictOutput: an answer a fail-closed handler's rule lets through is empty or hook JSON
// that parseOutput reads without error.
func FuzzStrictOutput(f *testing.F) {
	for _, s := range []string{"", "{}", "text", `{"decision":"block"}`, `{"hookSpecificOutput":{"permissionDecision":"allow"`, `{} {}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strictOutput(s) != nil || strings.TrimSpace(s) == "" {
			return
		}
		if _, err := parseOutput(s, DefaultMaxOutput); err != nil {
			t.Fatalf("let %q through: %v", s, err)
		}
		if !json.Valid([]byte(strings.TrimSpace(s))) {
			t.Fatalf("let invalid JSON %q through", s)
		}
	})
}

// FuzzGlobMatch: a pattern without * matches only itself, and * alone matches everything.
func FuzzGlobMatch(f *testing.F) {
	f.Add("https://h/*", "https://h/x")
	f.Add("a*b*c", "abc")
	f.Fuzz(func(t *testing.T, pat, s string) {
		got := globMatch(pat, s)
		if !strings.Contains(pat, "*") && got != (pat == s) {
			t.Fatalf("globMatch(%q, %q) = %v", pat, s, got)
		}
		if globMatch("*", s) != true {
			t.Fatal("* does not match everything")
		}
		if got && !strings.HasPrefix(s, strings.Split(pat, "*")[0]) {
			t.Fatalf("globMatch(%q, %q) ignores the prefix", pat, s)
		}
	})
}
