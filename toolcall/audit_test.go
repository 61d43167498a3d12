package toolcall

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
)

// fakeAuditor records decisions, or fails with err.
type fakeAuditor struct {
	err       error
	decisions []permission.Behavior
}

func (a *fakeAuditor) Decided(_ context.Context, _ Call, d permission.Decision) error {
	if a.err != nil {
		return a.err
	}
	a.decisions = append(a.decisions, d.Behavior)
	return nil
}

// A decision the auditor cannot record stops the call before it runs, and the run with it;
// a recorded one runs as before.
func TestAuditBeforeTheCall(t *testing.T) {
	allow := permission.Rule{Value: permission.ParseRule("Counted"), Behavior: permission.Allow, Source: permission.SourceSession}
	deny := permission.Rule{Value: permission.ParseRule("Counted"), Behavior: permission.Deny, Source: permission.SourceSession}
	full := errors.New("no space left on device")
	tests := []struct {
		name      string
		rule      permission.Rule
		auditErr  error
		want      Stage
		wantCalls int32
		recorded  []permission.Behavior
	}{
		{"allowed and recorded", allow, nil, Done, 1, []permission.Behavior{permission.Allow}},
		{"denied and recorded", deny, nil, Denied, 0, []permission.Behavior{permission.Deny}},
		{"allowed, not recorded", allow, full, Aborted, 0, nil},
		{"denied, not recorded", deny, full, Aborted, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int32
			counted := tool.Build(tool.Def[in]{Name: "Counted", Description: "counts its calls",
				CheckPermissions: func(context.Context, *permission.Context, in) permission.Decision {
					return permission.Decision{Behavior: permission.Passthrough}
				},
				Call: func(context.Context, in, *tool.Env) (tool.Result, error) {
					calls.Add(1)
					return tool.TextResult("ran"), nil
				}})
			pc, err := permission.New(permission.Config{Cwd: t.TempDir(), Rules: []permission.Rule{tt.rule}})
			if err != nil {
				t.Fatal(err)
			}
			a := &fakeAuditor{err: tt.auditErr}
			p := Pipeline{Audit: a}
			raw := json.RawMessage(`{"what":"work"}`)
			input, _ := Decode(counted, raw)
			out := p.Run(context.Background(), Call{Tool: counted, Input: input, Raw: raw, Permissions: pc, Env: &tool.Env{}})
			if out.Stage != tt.want || calls.Load() != tt.wantCalls {
				t.Fatalf("stage %v with %d calls, want %v with %d", out.Stage, calls.Load(), tt.want, tt.wantCalls)
			}
			if len(a.decisions) != len(tt.recorded) || (len(tt.recorded) > 0 && a.decisions[0] != tt.recorded[0]) {
				t.Errorf("recorded %v, want %v", a.decisions, tt.recorded)
			}
			if tt.auditErr == nil {
				if out.Err != nil {
					t.Errorf("err %v", out.Err)
				}
				return
			}
			if _, ok := errors.AsType[*AuditError](out.Err); !ok || !errors.Is(out.Err, full) {
				t.Errorf("the run's error %v is not the audit's", out.Err)
			}
			if !strings.Contains(out.Failure, "could not be recorded") || !strings.Contains(out.Failure, full.Error()) {
				t.Errorf("the model reads %q", out.Failure)
			}
		})
	}
}
