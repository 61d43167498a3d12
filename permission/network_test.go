package permission

import (
	"encoding/json"
	"testing"
)

// TestNetworkAnswerAllows: only an allow lets the held connection through, and an answer that
// substitutes another host or port does not.
func TestNetworkAnswerAllows(t *testing.T) {
	req := NetworkAsk("api.example.com", 443)
	if s := req.Decision.Suggestions; len(s) != 1 || s[0].Rules[0].String() != "WebFetch(domain:api.example.com)" || s[0].Destination != SourceLocal || s[0].Behavior != Allow {
		t.Errorf("suggestion %+v", s)
	}
	cases := []struct {
		name string
		d    Decision
		want bool
	}{
		{"allow", Decision{Behavior: Allow}, true},
		{"deny", Decision{Behavior: Deny}, false},
		{"ask", Decision{Behavior: Ask}, false},
		{"allow with the same input", Decision{Behavior: Allow, UpdatedInput: json.RawMessage(`{"host":"API.example.com","port":443}`)}, true},
		{"allow with the input as sent", Decision{Behavior: Allow, UpdatedInput: req.Input}, true},
		{"allow with another host", Decision{Behavior: Allow, UpdatedInput: json.RawMessage(`{"host":"evil.example","port":443}`)}, false},
		{"allow with another port", Decision{Behavior: Allow, UpdatedInput: map[string]any{"host": "api.example.com", "port": 22}}, false},
		{"allow with garbage", Decision{Behavior: Allow, UpdatedInput: json.RawMessage(`[1]`)}, false},
	}
	for _, c := range cases {
		if got := NetworkAnswerAllows(req, c.d); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// TestNetworkRule: deny, then ask, then allow, as WebFetch orders its domain rules.
func TestNetworkRule(t *testing.T) {
	rule := func(content string, b Behavior) Rule {
		return Rule{Value: RuleValue{Tool: "WebFetch", Content: content}, Behavior: b, Source: SourceLocal}
	}
	pc, err := New(Config{Cwd: t.TempDir(), Rules: []Rule{
		rule("domain:*.example.com", Allow), rule("domain:ask.example.com", Ask), rule("domain:bad.example.com", Deny), rule("domain:x.test", Allow),
	}})
	if err != nil {
		t.Fatal(err)
	}
	exact := func(d, h string) bool {
		if len(d) > 2 && d[:2] == "*." {
			return len(h) > len(d)-1 && h[len(h)-len(d)+1:] == d[1:]
		}
		return d == h
	}
	for host, want := range map[string]string{"a.example.com": "allow", "ask.example.com": "ask", "bad.example.com": "deny", "x.test": "allow", "y.test": ""} {
		got := ""
		if r := pc.NetworkRule(host, exact); r != nil {
			got = r.Behavior.String()
		}
		if got != want {
			t.Errorf("%s: %q, want %q", host, got, want)
		}
	}
}
