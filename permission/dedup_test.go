package permission

import (
	"fmt"
	"slices"
	"testing"
)

// TestDedupRules checks that exact repeats (value, behaviour, source and root) are dropped,
// the first kept, and that rules differing in any of those stay, also when every hash
// collides.
func TestDedupRules(t *testing.T) {
	mk := func(v string, b Behavior, s Source, root string, line int) *Rule {
		return &Rule{Value: ParseRule(v), Behavior: b, Source: s, Root: root, Origin: Origin{File: "f", Line: line}}
	}
	in := []*Rule{
		mk("Read(.env)", Deny, SourceProject, "/p", 1),
		mk("Read(.env)", Deny, SourceProject, "/p", 2), // repeat of 1
		mk("Read(.env)", Ask, SourceProject, "/p", 3),
		mk("Read(.env)", Deny, SourceUser, "/p", 4),
		mk("Read(.env)", Deny, SourceProject, "/q", 5),
		mk("Edit(.env)", Deny, SourceProject, "/p", 6),
		mk("Read(.env2)", Deny, SourceProject, "/p", 7),
		mk("Read(.env)", Ask, SourceProject, "/p", 8), // repeat of 3
		mk("Bash", Allow, SourceSession, "", 9),
		mk("Bash", Allow, SourceSession, "", 10), // repeat of 9
	}
	want := []int{1, 3, 4, 5, 6, 7, 9}
	for name, dedup := range map[string]func([]*Rule) []*Rule{
		"hash":       dedupRules,
		"collisions": func(rs []*Rule) []*Rule { return dedupRulesBy(rs, func(*Rule) uint64 { return 7 }) },
	} {
		var got []int
		for _, r := range dedup(slices.Clone(in)) {
			got = append(got, r.Origin.Line)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: kept lines %v, want %v", name, got, want)
		}
	}
	// Many distinct rules survive.
	var many []*Rule
	for i := range 500 {
		many = append(many, mk(fmt.Sprintf("Read(/x%d)", i), Deny, SourceProject, "/p", i))
	}
	if n := len(dedupRules(slices.Clone(many))); n != 500 {
		t.Errorf("500 distinct rules became %d", n)
	}
}
