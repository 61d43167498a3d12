package chatview

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinsdev/reins/internal/tui"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/settings"
)

// The chat's ignored rules are every entry the report did not load (an unread list keeps its
// count and loses its placeholder value) and every allow rule a deny or ask rule shadows.
func TestIgnoredRules(t *testing.T) {
	dir := t.TempDir()
	allow := func(v string, line int) permission.Rule {
		return permission.Rule{Source: permission.SourceLocal, Behavior: permission.Allow, Value: permission.ParseRule(v),
			Origin: permission.Origin{File: "/p/.claude/settings.local.json", Line: line, Col: 5}}
	}
	deny := permission.Rule{Source: permission.SourceUser, Behavior: permission.Deny, Value: permission.ParseRule("Bash(git:*)"),
		Origin: permission.Origin{File: "/h/.claude/settings.json", Line: 2, Col: 3}}
	pc, err := permission.New(permission.Config{Cwd: dir, Rules: []permission.Rule{allow("Bash(git push:*)", 7), allow("Read", 8), deny}})
	if err != nil {
		t.Fatal(err)
	}
	rep := &settings.Report{Files: []settings.FileReport{{
		Path: "/p/.claude/settings.json",
		Entries: []settings.EntryReport{
			{List: "allow", Value: "(3 not read)", Line: 4, Col: 12, Count: 3, Status: settings.StatusUntrusted, Reason: "project allow rules apply only in a trusted project and are read once it is"},
			{List: "deny", Value: "Bash(rm", Line: 6, Col: 7, Status: settings.StatusInvalid, Reason: "unbalanced"},
			{List: "ask", Value: "Write", Line: 7, Col: 7, Status: settings.StatusLoaded},
		},
	}}}
	want := []tui.IgnoredRule{
		{List: "allow", Where: "/p/.claude/settings.json:4:12", Why: "untrusted", Reason: "project allow rules apply only in a trusted project and are read once it is", Count: 3},
		{List: "deny", Value: "Bash(rm", Where: "/p/.claude/settings.json:6:7", Why: "invalid", Reason: "unbalanced"},
		{List: "allow", Value: "Bash(git push:*)", Where: "/p/.claude/settings.local.json:7:5", Why: "shadowed", Reason: "deny Bash(git:*) (/h/.claude/settings.json:2:3) always wins"},
	}
	if diff := cmp.Diff(want, IgnoredRules(rep, pc)); diff != "" {
		t.Errorf("ignored rules (-want +got):\n%s", diff)
	}
	if got := IgnoredRules(nil, pc); len(got) != 1 {
		t.Errorf("without a report: %+v, want the shadowed rule alone", got)
	}
}
