package permission

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"
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

// TestDedupRulesProperty compares the hash table with the plain definition (keep a rule
// unless an equal one was kept before it) on lists with many repeats, under hash functions
// from exact to badly colliding, so that probing and the collision search both run.
func TestDedupRulesProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var in []*Rule
		for i := range rapid.IntRange(0, 80).Draw(t, "n") {
			in = append(in, &Rule{
				Value:    RuleValue{Tool: rapid.SampledFrom([]string{"Read", "Edit", "Bash"}).Draw(t, "tool"), Content: rapid.SampledFrom([]string{"", "a", "b", ".env"}).Draw(t, "content")},
				Behavior: rapid.SampledFrom([]Behavior{Allow, Ask, Deny}).Draw(t, "behavior"),
				Source:   rapid.SampledFrom([]Source{SourceUser, SourceProject}).Draw(t, "source"),
				Root:     rapid.SampledFrom([]string{"", "/p"}).Draw(t, "root"),
				Origin:   Origin{Line: i},
			})
		}
		var want []*Rule
		for _, r := range in {
			if !slices.ContainsFunc(want, func(k *Rule) bool {
				return k.Value == r.Value && k.Behavior == r.Behavior && k.Source == r.Source && k.Root == r.Root
			}) {
				want = append(want, r)
			}
		}
		mod := rapid.SampledFrom([]uint64{0, 1, 3, 64}).Draw(t, "hash classes")
		hash := func(r *Rule) uint64 {
			h := uint64(len(r.Value.Tool)*31+len(r.Value.Content)*7+len(r.Root)) + uint64(r.Behavior)<<3 + uint64(r.Source)<<5
			if mod > 0 {
				h %= mod
			}
			return h
		}
		for name, got := range map[string][]*Rule{"hash": dedupRules(slices.Clone(in)), "weak hash": dedupRulesBy(slices.Clone(in), hash)} {
			if !slices.Equal(got, want) {
				t.Fatalf("%s: kept %d rules, want %d", name, len(got), len(want))
			}
		}
	})
}
