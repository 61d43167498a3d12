package hooks

import (
	"strings"
	"testing"
)

// FuzzParseOutput checks that no hook output makes the parser panic, that a permission
// decision it accepts is one of the three names, and that output starting as a JSON object is
// an answer or an error, never taken as no answer.
func FuzzParseOutput(f *testing.F) {
	for _, s := range []string{"", "plain text", "{", `{"continue":false}`, `{"decision":"block","reason":"x"}`,
		`{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"a":1}}}`,
		`{"hookSpecificOutput":{"decision":{"behavior":"deny","interrupt":true}}}`, `{"hookSpecificOutput":{"updatedInput":[]}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		o, err := parseOutput(s, DefaultMaxOutput)
		if trimmed := strings.TrimSpace(s); o == nil && err == nil && trimmed != "" && trimmed[0] == '{' {
			t.Fatalf("%q starts as a JSON object and was taken as no answer", s)
		}
		if err != nil || o == nil || o.Specific == nil {
			return
		}
		switch o.Specific.PermissionDecision {
		case "", "allow", "deny", "ask":
		default:
			t.Fatalf("accepted permissionDecision %q", o.Specific.PermissionDecision)
		}
	})
}
