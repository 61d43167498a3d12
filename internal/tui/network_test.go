package tui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/reinsdev/reins/permission"
)

// TestNetworkAskAnswers: the ask about a host the sandbox's proxy holds offers this
// connection, the host for the session, or the host saved as a WebFetch(domain:…) rule — and
// no timed or counted grant, which have no meaning for a host.
func TestNetworkAskAnswers(t *testing.T) {
	tests := []struct {
		name    string
		keys    []string
		want    permission.Behavior
		persist string
		session string
	}{
		{name: "this connection", keys: []string{"enter"}, want: permission.Allow},
		{name: "for the session", keys: []string{"2"}, want: permission.Allow, session: "WebFetch(domain:api.example.com)"},
		{name: "always, saved locally", keys: []string{"3"}, want: permission.Allow, persist: "localSettings WebFetch(domain:api.example.com)"},
		{name: "always, saved for the user", keys: []string{"tab", "tab", "3"}, want: permission.Allow, persist: "userSettings WebFetch(domain:api.example.com)"},
		{name: "no", keys: []string{"4"}, want: permission.Deny},
		{name: "esc is no", keys: []string{"esc"}, want: permission.Deny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, 100, 30)
			req := permission.NetworkAsk("api.example.com", 443)
			raw, _ := json.Marshal(req.Input)
			reply := make(chan answer, 1)
			h.send(h.asker.message(t.Context(), 1, req, raw, reply))
			if tt.name == "this connection" {
				h.golden("dialog-network")
			}
			h.press(tt.keys...)
			d, err := h.asker.settle(t.Context(), req, raw, received(t, reply))
			if err != nil {
				t.Fatal(err)
			}
			if d.Behavior != tt.want || (d.Behavior == permission.Allow) != permission.NetworkAnswerAllows(req, d) {
				t.Fatalf("decision %s, want %s", d.Behavior, tt.want)
			}
			var persisted []string
			for _, u := range h.persist {
				for _, r := range u.Rules {
					persisted = append(persisted, u.Destination.String()+" "+r.String())
				}
			}
			if strings.Join(persisted, ";") != tt.persist {
				t.Errorf("persisted %q, want %q", persisted, tt.persist)
			}
			var session []string
			for _, r := range h.perms.State().Rules {
				session = append(session, r.Rule)
			}
			if strings.Join(session, ";") != tt.session {
				t.Errorf("session rules %q, want %q", session, tt.session)
			}
			if tt.session != "" && h.perms.Context().NetworkRule("api.example.com", func(d, h string) bool { return d == h }) == nil {
				t.Error("the session's rule does not name the host")
			}
		})
	}
}
