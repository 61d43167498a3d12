package client

import (
	"slices"
	"strings"
	"testing"
)

// Disable ends a server's session and takes its tools out of the pool, with no restart; a
// call of an old tool fails; Enable brings it back. What the configuration keeps off cannot be
// turned on here.
func TestDisableAndEnable(t *testing.T) {
	pending := testEntry("pending", "basic")
	pending.State, pending.Reason = StateNeedsApproval, "a project server nobody approved"
	m := start(t, Options{}, testEntry("test", "basic"), pending)
	echo := find(t, m.Tools(), "mcp__test__echo")
	if err := m.Disable("test"); err != nil {
		t.Fatal(err)
	}
	if st := m.Status()[0]; st.State != StateOff || st.Restarts != 0 {
		t.Errorf("after Disable: %+v", st)
	}
	for _, tl := range m.Tools() {
		if strings.HasPrefix(tl.Name(), "mcp__test__") {
			t.Errorf("the turned-off server's tool %s is still in the pool", tl.Name())
		}
	}
	if res := run(t, echo, `{"text":"x"}`); !res.IsError {
		t.Errorf("a call of the turned-off server ran: %+v", res)
	}
	st, err := m.Enable(t.Context(), "test")
	if err != nil || st.State != StateConnected {
		t.Fatalf("Enable = %+v, %v", st, err)
	}
	if got := m.ServerTools("test"); !slices.Contains(got, "mcp__test__echo") {
		t.Errorf("after Enable ServerTools = %q", got)
	}
	if res := run(t, echo, `{"text":"back"}`); res.IsError || res.TextOf() != "echo: back" {
		t.Errorf("after Enable: %+v", res)
	}
	if err := m.Disable("pending"); err == nil || !strings.Contains(err.Error(), "not started") {
		t.Errorf("Disable of a server never started: %v", err)
	}
	if _, err := m.Enable(t.Context(), "test"); err == nil {
		t.Error("Enable of a connected server did nothing wrong")
	}
}
