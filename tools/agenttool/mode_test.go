package agenttool

import (
	"testing"

	"github.com/reinsdev/reins/permission"
)

func TestChildMode(t *testing.T) {
	const (
		def    = permission.ModeDefault
		edits  = permission.ModeAcceptEdits
		plan   = permission.ModePlan
		bypass = permission.ModeBypass
		auto   = permission.ModeAuto
		dont   = permission.ModeDontAsk
	)
	tests := []struct {
		name                      string
		parent                    permission.Mode
		bypassOK, autoOK, noAsker bool
		want, got                 permission.Mode
	}{
		{name: "no definition mode: the parent's", parent: edits, want: "", got: edits},
		{name: "default parent: the definition chooses", parent: def, want: edits, got: edits},
		{name: "bypass parent wins", parent: bypass, bypassOK: true, want: def, got: bypass},
		{name: "acceptEdits parent wins", parent: edits, want: dont, got: edits},
		{name: "auto parent wins", parent: auto, autoOK: true, want: edits, got: auto},
		{name: "dontAsk parent keeps its mode", parent: dont, want: bypass, bypassOK: true, got: dont},
		{name: "prompt-less parent: default", parent: def, noAsker: true, want: edits, got: def},
		{name: "plan is never entered", parent: def, want: plan, got: def},
		{name: "plan parent: the definition chooses", parent: plan, want: edits, got: edits},
		{name: "bypass only when available", parent: def, want: bypass, got: def},
		{name: "bypass when available", parent: def, bypassOK: true, want: bypass, got: bypass},
		{name: "auto only when available", parent: def, want: auto, got: def},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pc, err := permission.New(permission.Config{Mode: tt.parent, Cwd: t.TempDir(), BypassAvailable: tt.bypassOK,
				AutoAvailable: tt.autoOK, AvoidPrompts: tt.noAsker})
			if err != nil {
				t.Fatal(err)
			}
			if got := ChildMode(pc, tt.want); got != tt.got {
				t.Errorf("ChildMode(parent %s, definition %q) = %s, want %s", tt.parent, tt.want, got, tt.got)
			}
		})
	}
}
