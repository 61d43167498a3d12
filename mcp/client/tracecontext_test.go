package client

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsdev/reins/tracecontext"
)

// A stdio server is started inside the trace of what started it (the session's start-up span):
// its TRACEPARENT is that span's, even when its configuration sets another.
func TestStdioServerGetsTheTraceContext(t *testing.T) {
	const parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	out := filepath.Join(t.TempDir(), "traceparent")
	e := testEntry("test", "basic", "TRACEPARENT", "from-config")
	e.Config.Args = []string{"-c", `echo "$TRACEPARENT" > "$1"; exec "$2"`, "sh", out, os.Args[0]}
	e.Config.Command = "sh"
	m := Start(tracecontext.With(t.Context(), parent, ""), []Entry{e}, Options{Roots: []string{t.TempDir()}})
	t.Cleanup(func() { _ = m.Close() })
	if st := m.Status()[0]; st.State != StateConnected {
		t.Fatalf("status = %+v", st)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(b)); got != parent {
		t.Errorf("the server saw TRACEPARENT %q, want %q", got, parent)
	}
}
