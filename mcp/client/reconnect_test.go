package client

import (
	"slices"
	"strings"
	"testing"
)

// A server that crashed for good (its one restart used) is connected again by Reconnect: its
// tools run again, and it has its one automatic restart again.
func TestReconnectStartsAFailedServerAgain(t *testing.T) {
	m := start(t, Options{}, testEntry("test", "basic"))
	ts := m.Tools()
	crash, echo := find(t, ts, "mcp__test__crash"), find(t, ts, "mcp__test__echo")
	run(t, crash, `{}`)
	waitFor(t, "the restart", func() bool { st := m.Status()[0]; return st.State == StateConnected && st.Restarts == 1 })
	run(t, crash, `{}`)
	waitFor(t, "the failure", func() bool { return m.Status()[0].State == StateFailed })
	if got := m.ServerTools("test"); got != nil {
		t.Errorf("a failed server's tools = %q, want none", got)
	}

	st, err := m.Reconnect(t.Context(), "test")
	if err != nil || st.State != StateConnected || st.Restarts != 0 {
		t.Fatalf("Reconnect = %+v, %v; want connected with its restart back", st, err)
	}
	if res := run(t, echo, `{"text":"back"}`); res.IsError || res.TextOf() != "echo: back" {
		t.Errorf("after the reconnect: %+v", res)
	}
	if got := m.ServerTools("test"); !slices.Contains(got, "mcp__test__echo") {
		t.Errorf("ServerTools = %q, want mcp__test__echo among them", got)
	}
	run(t, crash, `{}`)
	waitFor(t, "the restart after the reconnect", func() bool { st := m.Status()[0]; return st.State == StateConnected && st.Restarts == 1 })
}

// Reconnecting a connected server replaces its session; the old one's end is not taken for a
// crash (no restart counted).
func TestReconnectAConnectedServer(t *testing.T) {
	m := start(t, Options{}, testEntry("test", "basic"))
	echo := find(t, m.Tools(), "mcp__test__echo")
	if _, err := m.Reconnect(t.Context(), "test"); err != nil {
		t.Fatal(err)
	}
	if res := run(t, echo, `{"text":"again"}`); res.TextOf() != "echo: again" {
		t.Errorf("after the reconnect: %+v", res)
	}
	if st := m.Status()[0]; st.State != StateConnected || st.Restarts != 0 {
		t.Errorf("status = %+v, want connected, no restart", st)
	}
}

// What the configuration keeps off stays off, an unknown name is an error, and a server that
// fails again says why.
func TestReconnectRefusals(t *testing.T) {
	pending := testEntry("pending", "basic")
	pending.State, pending.Reason = StateNeedsApproval, "a project server nobody approved"
	m := start(t, Options{}, pending, testEntry("broken", "fail-start"))
	for _, tc := range []struct{ name, want string }{
		{"pending", "not started (needs approval)"},
		{"nope", `no MCP server "nope"`},
		{"broken", "GITHUB_TOKEN is not set"},
	} {
		_, err := m.Reconnect(t.Context(), tc.name)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Reconnect(%s) = %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
	for _, st := range m.Status() {
		if st.Name == "pending" && st.State != string(StateNeedsApproval) {
			t.Errorf("the pending server = %+v, want it still waiting", st)
		}
	}
}
