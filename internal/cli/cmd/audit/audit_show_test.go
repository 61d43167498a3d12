package audit

import (
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinsdev/reins/internal/cli/cmdutil"
)

// TestNewCmdAuditShow checks that every filter flag of `audit show` lands in its options.
func TestNewCmdAuditShow(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want auditShowOptions
	}{
		{nil, auditShowOptions{}},
		{[]string{"--json"}, auditShowOptions{asJSON: true}},
		{
			[]string{"--session", "s1", "--tool", "Bash", "--decision", "deny", "--kind", "decision", "--since", "24h", "--until", "2026-01-31"},
			auditShowOptions{filter: auditFilter{session: "s1", tool: "Bash", decision: "deny", kind: "decision", since: "24h", until: "2026-01-31"}},
		},
	} {
		var got *auditShowOptions
		cmd := newCmdAuditShow(&cmdutil.Factory{}, func(o *auditShowOptions) error { got = o; return nil })
		cmd.SetArgs(tt.args)
		cmd.SetOut(io.Discard)
		if err := cmd.Execute(); err != nil {
			t.Fatalf("%q: %v", tt.args, err)
		}
		if diff := cmp.Diff(tt.want, *got, cmp.AllowUnexported(auditShowOptions{}, auditFilter{}), cmp.FilterPath(func(p cmp.Path) bool {
			return p.Last().String() == ".f"
		}, cmp.Ignore())); diff != "" {
			t.Errorf("%q: options (-want +got):\n%s", tt.args, diff)
		}
	}
}
