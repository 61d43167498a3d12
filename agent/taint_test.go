package agent

import (
	"context"
	"testing"

	"github.com/reinsdev/reins/permission"
)

// TestTaintIsRecordedAndRestored: a secret read — in the session or in a sub-agent's view of
// it — is recorded with the session state as it happens, a resumed session is tainted as the
// saved one was, and /clear's Clear is recorded too.
func TestTaintIsRecordedAndRestored(t *testing.T) {
	newPC := func() *permission.Context {
		pc, err := permission.New(permission.Config{Cwd: t.TempDir(), Mode: permission.ModeDefault})
		if err != nil {
			t.Fatal(err)
		}
		return pc
	}
	p := NewPermissions(newPC(), nil)
	var states []SessionState
	p.setOnChange(func(st SessionState) error { states = append(states, st); return nil })
	last := func() []permission.SecretRead {
		if len(states) == 0 {
			return nil
		}
		return states[len(states)-1].Taint
	}

	child := p.Derive(func(pc *permission.Context) *permission.Context { return pc.WithAvoidPrompts(true) })
	read := permission.SecretRead{Path: "/p/.env", Pattern: ".env*", Tool: "Read", CallID: "toolu_1"}
	child.Context().Taint().Record(read)
	if got := last(); len(got) != 1 || got[0] != read {
		t.Fatalf("the sub-agent's read was recorded as %+v", got)
	}
	if !p.Context().Taint().Tainted() {
		t.Fatal("the parent does not see the sub-agent's read")
	}
	if err := p.Update(context.Background(), permission.Update{Type: permission.SetMode, Destination: permission.SourceSession, Mode: permission.ModeAcceptEdits}); err != nil {
		t.Fatal(err)
	}
	if !p.Context().Taint().Tainted() || len(last()) != 1 {
		t.Fatal("a mode change lost the taint")
	}

	resumed, err := states[len(states)-1].Restore(newPC(), false)
	if err != nil {
		t.Fatal(err)
	}
	if reads, _ := resumed.Taint().Reads(); len(reads) != 1 || reads[0] != read {
		t.Fatalf("the resumed session's reads: %+v", reads)
	}

	p.Context().Taint().Clear()
	if got := last(); len(got) != 0 {
		t.Fatalf("Clear was not recorded: %+v", got)
	}

	// Another session resumed in the same process: its record is watched instead.
	n := len(states)
	if err := p.Replace(resumed, nil); err != nil {
		t.Fatal(err)
	}
	resumed.Taint().Record(permission.SecretRead{Path: "/p/id_rsa", Pattern: "id_rsa*", Tool: "Bash"})
	if len(states) < n+2 || len(last()) != 2 {
		t.Fatalf("a read in the replaced session was not recorded: %+v", last())
	}
}
