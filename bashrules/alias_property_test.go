package bashrules

import (
	"context"
	"strings"
	"testing"

	"github.com/reinsdev/reins/bashrules/knowledge"
	"github.com/reinsdev/reins/permission"
	"pgregory.net/rapid"
)

// TestPropertyDenyCoversSubcommandAliases: for any subcommand of an entry that has other
// names (docker container rm / docker rm, npm i / npm install), a deny rule on its first name
// denies a call spelt with any of the others.
func TestPropertyDenyCoversSubcommandAliases(t *testing.T) {
	f := newFixture(t)
	type alias struct{ prog, canon, other string }
	var all []alias
	for _, e := range optionTables() {
		for _, s := range e.Subcommands() {
			for _, n := range s.Names[1:] {
				if !strings.ContainsAny(s.Names[0]+n, "/ ") {
					all = append(all, alias{e.Names[0], s.Names[0], n})
				}
			}
		}
	}
	t.Logf("%d subcommand aliases", len(all))
	if len(all) == 0 {
		t.Fatal("no entry has a subcommand with another name")
	}
	rapid.Check(t, func(rt *rapid.T) {
		a := rapid.SampledFrom(all).Draw(rt, "alias")
		pc := f.context(t, permission.ModeDefault, "deny:Bash("+a.prog+" "+a.canon+":*)")
		line := a.prog + " " + a.other + " README.md"
		if d := Check(context.Background(), pc, line); d.Behavior != permission.Deny {
			rt.Fatalf("Check(%q) with deny Bash(%s %s:*) = %s (%s)", line, a.prog, a.canon, outcome(d), reasonText(d))
		}
	})
}

// TestPropertyDenyCoversProgramNames: for any knowledge-base entry with several names of one
// program (fd fdfind, sh dash, awk gawk mawk nawk; not a group) and any two of them, a deny rule on one denies the
// program run under the other, in every mode, bypass included.
func TestPropertyDenyCoversProgramNames(t *testing.T) {
	f := newFixture(t)
	var multi [][]string
	for _, e := range knowledge.Builtin().Programs() {
		if len(e.Names) > 1 && !e.Group {
			multi = append(multi, e.Names)
		}
	}
	t.Logf("%d entries with several names", len(multi))
	if len(multi) == 0 {
		t.Fatal("no entry has several names")
	}
	modes := []permission.Mode{permission.ModeDefault, permission.ModeAcceptEdits, permission.ModeBypass, permission.ModeDontAsk}
	rapid.Check(t, func(rt *rapid.T) {
		names := rapid.SampledFrom(multi).Draw(rt, "entry")
		denied := rapid.SampledFrom(names).Draw(rt, "denied")
		run := rapid.SampledFrom(names).Draw(rt, "run")
		mode := rapid.SampledFrom(modes).Draw(rt, "mode")
		pc := f.context(t, mode, "deny:Bash("+denied+":*)")
		line := run + " --version"
		if d := Check(context.Background(), pc, line); d.Behavior != permission.Deny {
			rt.Fatalf("Check(%q) in %s with deny Bash(%s:*) = %s (%s)", line, mode, denied, outcome(d), reasonText(d))
		}
	})
}
