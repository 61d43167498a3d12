package hooks

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsdev/reins/tracecontext"
)

// A hook runs inside the call's trace: TRACEPARENT and TRACESTATE are the context's, never a
// stale pair inherited from reins' own environment; without a trace context the environment is
// left as it is.
func TestHookGetsTheTraceContext(t *testing.T) {
	const parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	tests := []struct {
		name string
		ctx  context.Context
		want string
	}{
		{"carried", tracecontext.With(context.Background(), parent, "k=v"), parent + "|k=v"},
		{"none carried keeps the inherited", context.Background(), "inherited|old"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "env.txt")
			h := script(t, dir, "env.sh", fmt.Sprintf(`echo "$TRACEPARENT|$TRACESTATE" > %s`, out))
			r := newRunner(t, dir, Hook{Event: PreToolUse, Command: h})
			r.Env = []string{"PATH=" + os.Getenv("PATH"), "TRACEPARENT=inherited", "TRACESTATE=old"}
			r.PreToolUse(tt.ctx, Common{Cwd: dir}, bashCall)
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(string(b)); got != tt.want {
				t.Errorf("the hook saw %q, want %q", got, tt.want)
			}
		})
	}
}
